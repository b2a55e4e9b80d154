import { GSM7_ESCAPE, GSM7_EXTENSION_BY_SEPTET } from "./gsm7-alphabet";

/** Octets that are no valid text in their data_coding: refused, never repaired. */
export class InvalidTextError extends Error {
  override readonly name = "InvalidTextError";
}

/**
 * Checks octets before they are decoded strictly: GSM-7 unpacked (data_coding 0) holds septets
 * only (0x00-0x7F), every escape followed by an assigned extension code; IA5 is 7-bit; UCS-2
 * has whole code units and no lone surrogate. Latin-1 maps every octet. The lenient decoders
 * show U+FFFD or a space for these (what a handset does); a submit must not be forwarded so.
 */
export function checkText(bytes: Uint8Array, dataCoding: number): void {
  if (dataCoding === 0x00) return checkGsm7(bytes);
  if (dataCoding === 0x01) {
    const at = bytes.findIndex((byte) => byte > 0x7f);
    if (at >= 0) throw new InvalidTextError(`octet 0x${hex(bytes[at]!)} at ${at} is not IA5 (7-bit)`);
  }
  if (dataCoding === 0x08) checkUcs2(bytes);
}

function checkGsm7(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i++) {
    const septet = bytes[i]!;
    if (septet > 0x7f) throw new InvalidTextError(`octet 0x${hex(septet)} at ${i} is not a GSM-7 septet`);
    if (septet !== GSM7_ESCAPE) continue;
    const next = bytes[i + 1];
    if (next === undefined) throw new InvalidTextError(`the GSM-7 escape at ${i} ends the text`);
    if (!GSM7_EXTENSION_BY_SEPTET.has(next))
      throw new InvalidTextError(
        `the GSM-7 escape at ${i} is followed by 0x${hex(next)}, no extension character`,
      );
    i++;
  }
}

function checkUcs2(bytes: Uint8Array): void {
  if (bytes.length % 2 !== 0) throw new InvalidTextError(`UCS-2 text of ${bytes.length} octets (odd)`);
  for (let i = 0; i < bytes.length; i += 2) {
    const unit = (bytes[i]! << 8) | bytes[i + 1]!;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = i + 3 < bytes.length ? (bytes[i + 2]! << 8) | bytes[i + 3]! : -1;
      if (low < 0xdc00 || low > 0xdfff) throw new InvalidTextError(`lone high surrogate at octet ${i}`);
      i += 2;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      throw new InvalidTextError(`lone low surrogate at octet ${i}`);
    }
  }
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0").toUpperCase();
}
