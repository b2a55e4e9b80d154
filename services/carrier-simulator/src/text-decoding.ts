/**
 * Just enough decoding for the simulator's record of what it received. The platform's
 * own encoder lives in @sms/sms-encoding; this one stays local so the simulator does not
 * judge the encoder with itself.
 */

// GSM 03.38 default alphabet, one character per septet value (3GPP TS 23.038 §6.2.1).
export const GSM7_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
  "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
// Extension table reached through the 0x1B escape (TS 23.038 §6.2.1.1).
export const GSM7_EXTENSION: Record<number, string> = {
  0x0a: "\f",
  0x14: "^",
  0x28: "{",
  0x29: "}",
  0x2f: "\\",
  0x3c: "[",
  0x3d: "~",
  0x3e: "]",
  0x40: "|",
  0x65: "€",
};

/** Concatenation info from a UDH (IE 0x00, 8-bit reference, or 0x08, 16-bit). */
export interface SegmentInfo {
  reference: number;
  total: number;
  index: number;
}

/** What the simulator keeps of a short message. */
export interface DecodedMessage {
  /** Decoded text; undefined for a data_coding we do not decode (binary). */
  text: string | undefined;
  segment: SegmentInfo | undefined;
  udh: Buffer | undefined;
}

/** Decodes GSM-7 in unpacked septets (one per octet, as SMPP carries it). */
export function decodeGsm7Unpacked(bytes: Buffer): string {
  let text = "";
  for (let i = 0; i < bytes.length; i++) {
    const septet = bytes[i]! & 0x7f;
    if (septet === 0x1b && i + 1 < bytes.length) {
      const next = bytes[++i]! & 0x7f;
      text += GSM7_EXTENSION[next] ?? GSM7_BASIC[next];
    } else {
      text += GSM7_BASIC[septet];
    }
  }
  return text;
}

/** How an SMSC reads data_coding 0 (its "default alphabet"). */
export type DataCoding0 = "gsm7" | "gsm7-packed" | "latin1";

/**
 * Decodes GSM-7 packed 7 bits per septet, after `fillBits` (those that align the text after a
 * UDH). A CR in 7 spare bits at the end is padding (TS 23.038 §6.1.2.3.1), not text.
 */
export function decodeGsm7Packed(bytes: Buffer, fillBits: number): string {
  const bits = bytes.length * 8 - fillBits;
  const septets: number[] = [];
  for (let bit = fillBits; bit + 7 <= bytes.length * 8; bit += 7) {
    const byte = bit >> 3;
    const shift = bit & 7;
    let value = bytes[byte]! >> shift;
    if (shift > 1) value |= bytes[byte + 1]! << (8 - shift);
    septets.push(value & 0x7f);
  }
  // Septets that fill the last octet exactly and end in CR: the sender's padding of 7 spare bits.
  if (bits % 7 === 0 && septets[septets.length - 1] === 0x0d) septets.pop();
  return decodeGsm7Unpacked(Buffer.from(septets));
}

/** Decodes UCS-2 big-endian (surrogate pairs pass through as UTF-16). */
export function decodeUcs2(bytes: Buffer): string {
  return Buffer.from(bytes.subarray(0, bytes.length & ~1))
    .swap16()
    .toString("utf16le");
}

/** Splits off the UDH (when esm_class has UDHI) and decodes the text per data_coding (SMPP 3.4 §5.2.19). */
export function decodeShortMessage(
  message: Buffer,
  dataCoding: number,
  esmClass: number,
  dataCoding0: DataCoding0 = "gsm7",
): DecodedMessage {
  let body = message;
  let udh: Buffer | undefined;
  if (esmClass & 0x40 && message.length > 0) {
    udh = message.subarray(0, message[0]! + 1);
    body = message.subarray(message[0]! + 1);
  }
  const fillBits = udh ? (7 - ((udh.length * 8) % 7)) % 7 : 0;
  return {
    text: decodeBody(body, dataCoding, dataCoding0, fillBits),
    segment: udh ? readConcatInfo(udh) : undefined,
    udh,
  };
}

function decodeBody(
  body: Buffer,
  dataCoding: number,
  dataCoding0: DataCoding0,
  fillBits: number,
): string | undefined {
  switch (dataCoding) {
    case 0x00: // SMSC default alphabet: GSM-7 unpacked for most carriers; packed or Latin-1 for some
      if (dataCoding0 === "latin1") return body.toString("latin1");
      return dataCoding0 === "gsm7-packed" ? decodeGsm7Packed(body, fillBits) : decodeGsm7Unpacked(body);
    case 0x01: // IA5 / ASCII
      return body.toString("ascii");
    case 0x03: // Latin-1
      return body.toString("latin1");
    case 0x08: // UCS-2
      return decodeUcs2(body);
    default:
      return undefined;
  }
}

function readConcatInfo(udh: Buffer): SegmentInfo | undefined {
  let offset = 1;
  while (offset + 2 <= udh.length) {
    const id = udh[offset]!;
    const length = udh[offset + 1]!;
    const data = udh.subarray(offset + 2, offset + 2 + length);
    if (id === 0x00 && length === 3) return { reference: data[0]!, total: data[1]!, index: data[2]! };
    if (id === 0x08 && length === 4)
      return { reference: data.readUInt16BE(0), total: data[2]!, index: data[3]! };
    offset += 2 + length;
  }
  return undefined;
}
