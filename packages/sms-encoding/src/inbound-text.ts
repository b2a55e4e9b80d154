import { decodeGsm7 } from "./gsm7";
import { decodeUcs2 } from "./ucs2";

/** How an inbound text was read; `hex` is a data_coding we do not decode, kept as its octets in hex. */
export type InboundEncoding = "GSM-7" | "IA5" | "Latin-1" | "UCS-2" | "hex";

export interface DecodedInboundText {
  text: string;
  encoding: InboundEncoding;
}

/**
 * The alphabet of an SMPP data_coding (SMPP 3.4 §5.2.19; 0x10-0x1F and 0xF0-0xFF are GSM 03.38 data
 * coding schemes with a message class: bits 3-2 name the alphabet). Binary and the national
 * alphabets we have no table for (JIS, Cyrillic, Hebrew, KS C 5601, pictogram) read as hex.
 */
export function inboundEncodingOf(dataCoding: number): InboundEncoding {
  switch (dataCoding) {
    case 0x00:
      return "GSM-7";
    case 0x01:
      return "IA5";
    case 0x03:
      return "Latin-1";
    case 0x08:
      return "UCS-2";
  }
  if ((dataCoding & 0xf0) === 0x10) {
    const alphabet = (dataCoding >> 2) & 0x03;
    if (alphabet === 0) return "GSM-7";
    if (alphabet === 2) return "UCS-2";
    return "hex";
  }
  // 0xF0-0xFF: bit 2 clear is the GSM default alphabet, set is 8-bit data.
  if ((dataCoding & 0xf0) === 0xf0 && (dataCoding & 0x04) === 0) return "GSM-7";
  return "hex";
}

/**
 * Decodes the text of an inbound message (its parts' octets joined, UDH removed) with our own
 * decoders: GSM-7 unpacked (one septet per octet, as SMPP carries it; extension table included),
 * IA5, Latin-1, UCS-2 (surrogate pairs joined, so an emoji split between two parts comes out whole).
 * Never throws: an octet a table does not have becomes U+FFFD, an unknown data_coding comes back hex.
 */
export function decodeInboundText(bytes: Uint8Array, dataCoding: number): DecodedInboundText {
  const encoding = inboundEncodingOf(dataCoding);
  if (encoding === "hex") return { text: Buffer.from(bytes).toString("hex"), encoding };
  return { text: storable(decodeWith(encoding, bytes)), encoding };
}

function decodeWith(encoding: Exclude<InboundEncoding, "hex">, bytes: Uint8Array): string {
  switch (encoding) {
    case "GSM-7":
      return decodeGsm7(bytes);
    case "IA5":
      return decodeIa5(bytes);
    case "Latin-1":
      return Buffer.from(bytes).toString("latin1");
    case "UCS-2":
      return decodeUcs2(bytes);
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text PostgreSQL and JSON take as it is: trailing NULs (C-string padding some SMSCs add) dropped,
 * any other NUL and any lone surrogate shown as U+FFFD. PostgreSQL refuses NUL in text, and a
 * refusal would make the carrier redeliver the same message for ever.
 */
function storable(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0) end--;
  return text.slice(0, end).split("\u0000").join("\uFFFD").replace(LONE_SURROGATE, "\uFFFD");
}

function decodeIa5(bytes: Uint8Array): string {
  // ASCII, not the GSM table ("$" is 0x24); an octet above 0x7F is no IA5 character: marked, not masked.
  let text = "";
  for (const byte of bytes) text += byte > 0x7f ? "\uFFFD" : String.fromCharCode(byte);
  return text;
}
