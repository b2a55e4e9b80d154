import { decodeGsm7 } from "./gsm7";
import { decodeUcs2 } from "./ucs2";

/** SMPP data_coding values we decode (SMPP v3.4 §5.2.19). */
export const DATA_CODING = {
  /** SMSC default alphabet; for us and our carriers, GSM-7 unpacked one septet per octet. */
  SMSC_DEFAULT: 0x00,
  /** IA5 (CCITT T.50), i.e. ASCII. */
  IA5: 0x01,
  /** ISO-8859-1 (Latin-1). */
  LATIN1: 0x03,
  /** UCS-2, big-endian. */
  UCS2: 0x08,
} as const;

/** An incoming short_message used a data_coding we do not decode. */
export class UnsupportedDataCodingError extends Error {
  override readonly name = "UnsupportedDataCodingError";

  constructor(readonly dataCoding: number) {
    super(
      `data_coding 0x${dataCoding.toString(16).padStart(2, "0")} is not supported (0x00, 0x01, 0x03 and 0x08 are)`,
    );
  }
}

/** Decodes an SMPP short_message (without UDH) according to its data_coding: 0 GSM-7, 1 IA5/ASCII, 3 Latin-1, 8 UCS-2. */
export function decodeShortMessage(bytes: Uint8Array, dataCoding: number): string {
  switch (dataCoding) {
    case DATA_CODING.SMSC_DEFAULT:
      return decodeGsm7(bytes);
    case DATA_CODING.IA5:
      return decodeIa5(bytes);
    case DATA_CODING.LATIN1:
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
    case DATA_CODING.UCS2:
      return decodeUcs2(bytes);
    default:
      throw new UnsupportedDataCodingError(dataCoding);
  }
}

function decodeIa5(bytes: Uint8Array): string {
  // IA5 is ASCII, not the GSM table: 0x24 is "$" (the smpp library decodes it as "¤").
  // Node's "ascii" decoder clears the top bit (0xE9 becomes "i"), inventing a character; mark such octets instead.
  let text = "";
  for (const byte of bytes) text += byte > 0x7f ? "\uFFFD" : String.fromCharCode(byte);
  return text;
}
