/**
 * User Data Header concatenation elements (3GPP TS 23.040 §9.2.3.24.1 and §9.2.3.24.8).
 * A UDH is UDHL (its own length, excluding itself) followed by information elements
 * of the form IEI, IEDL, data.
 */

/** IEI 0x00: concatenated short messages, 8-bit reference (TS 23.040 §9.2.3.24.1). */
const IEI_CONCAT_8BIT = 0x00;
/** IEI 0x08: concatenated short messages, 16-bit reference (TS 23.040 §9.2.3.24.8). */
const IEI_CONCAT_16BIT = 0x08;

/** Where a part belongs in a concatenated message, and how many octets of UDH precede its text. */
export interface ConcatInfo {
  /** Same for every part of one message: 0–255 (IEI 0x00) or 0–65535 (IEI 0x08). */
  reference: number;
  /** Number of parts, 1–255. */
  total: number;
  /** This part's position, 1-based. */
  seq: number;
  /** Octets of UDH including the UDHL octet: the text starts at this offset. */
  headerLength: number;
}

function assertOctet(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min || value > 255) {
    throw new RangeError(`${name} must be an integer from ${min} to 255, got ${value}`);
  }
}

/** Builds the 6-octet UDH `05 00 03 ref total seq` for one part of a concatenated message (3GPP TS 23.040 §9.2.3.24.1). */
export function concatUdh(reference: number, total: number, seq: number): Buffer {
  assertOctet("reference", reference, 0);
  assertOctet("total", total, 1);
  assertOctet("seq", seq, 1);
  if (seq > total) throw new RangeError(`seq ${seq} is greater than total ${total}`);
  return Buffer.from([0x05, IEI_CONCAT_8BIT, 0x03, reference, total, seq]);
}

/** Reads the concatenation element (IEI 0x00 or 0x08) of a UDH at the start of `buffer`; null when there is none or the header is malformed. */
export function parseUdh(buffer: Uint8Array): ConcatInfo | null {
  if (buffer.length < 1) return null;
  const headerLength = (buffer[0] as number) + 1;
  if (headerLength > buffer.length) return null;
  let found: Omit<ConcatInfo, "headerLength"> | null = null;
  let offset = 1;
  while (offset < headerLength) {
    if (offset + 2 > headerLength) return null;
    const iei = buffer[offset] as number;
    const length = buffer[offset + 1] as number;
    const start = offset + 2;
    if (start + length > headerLength) return null;
    const data = buffer.subarray(start, start + length);
    // A repeated element: the receiver uses the last occurrence (TS 23.040 §9.2.3.24).
    if (iei === IEI_CONCAT_8BIT && length === 3) {
      found = readConcat(data[0] as number, data[1] as number, data[2] as number) ?? found;
    } else if (iei === IEI_CONCAT_16BIT && length === 4) {
      found =
        readConcat(((data[0] as number) << 8) | (data[1] as number), data[2] as number, data[3] as number) ??
        found;
    }
    offset = start + length;
  }
  return found ? { ...found, headerLength } : null;
}

function readConcat(reference: number, total: number, seq: number): Omit<ConcatInfo, "headerLength"> | null {
  // A total of 0, or a sequence of 0 or past the total: ignore the whole element (TS 23.040 §9.2.3.24.1).
  if (total === 0 || seq === 0 || seq > total) return null;
  return { reference, total, seq };
}

/** Splits a short_message that carries a UDH (esm_class UDHI set) into the header and the text after it; null when UDHL runs past the end. */
export function splitUdh(shortMessage: Uint8Array): { udh: Buffer; payload: Buffer } | null {
  if (shortMessage.length < 1) return null;
  const headerLength = (shortMessage[0] as number) + 1;
  if (headerLength > shortMessage.length) return null;
  const buffer = Buffer.from(shortMessage);
  return { udh: buffer.subarray(0, headerLength), payload: buffer.subarray(headerLength) };
}
