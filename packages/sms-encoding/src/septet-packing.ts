/**
 * GSM 7-bit packing (3GPP TS 23.038 §6.1.2.1.1): septets are laid end to end, least significant
 * bit first, so 8 septets fill 7 octets. After a User Data Header the first septet starts on the
 * next septet boundary counted from the start of TP-UD; the bits in between are fill bits
 * (3GPP TS 23.040 §9.2.3.24), here placed at the start of the packed output.
 */

/** Fill bits (0–6) needed after a UDH of `udhLength` octets (UDHL byte included) so text starts on a septet boundary (3GPP TS 23.040 §9.2.3.24). */
export function fillBitsAfterUdh(udhLength: number): number {
  return (7 - ((udhLength * 8) % 7)) % 7;
}

function assertFillBits(fillBits: number): void {
  if (!Number.isInteger(fillBits) || fillBits < 0 || fillBits > 6) {
    throw new RangeError(`fillBits must be an integer from 0 to 6, got ${fillBits}`);
  }
}

/** Packs septets (values 0–127) into octets, after `fillBits` zero bits (default 0) (3GPP TS 23.038 §6.1.2.1.1). */
export function packSeptets(septets: Uint8Array | readonly number[], fillBits = 0): Uint8Array {
  assertFillBits(fillBits);
  const out = new Uint8Array(Math.ceil((fillBits + septets.length * 7) / 8));
  let bit = fillBits;
  for (let i = 0; i < septets.length; i++) {
    const septet = septets[i] as number;
    if (!Number.isInteger(septet) || septet < 0 || septet > 0x7f) {
      throw new RangeError(`septet ${i} is ${septet}, not a value from 0 to 127`);
    }
    const byte = bit >> 3;
    const shift = bit & 7;
    out[byte] = (out[byte] as number) | ((septet << shift) & 0xff);
    // A septet starting past bit 1 of an octet spills its high bits into the next octet.
    if (shift > 1) out[byte + 1] = (out[byte + 1] as number) | (septet >> (8 - shift));
    bit += 7;
  }
  return out;
}

/**
 * Unpacks `count` septets from packed octets that start with `fillBits` fill bits.
 * The count comes from TP-UDL: 7 septets and 8 septets both take 7 octets, so the octets alone cannot tell.
 */
export function unpackSeptets(bytes: Uint8Array, count: number, fillBits = 0): Uint8Array {
  assertFillBits(fillBits);
  if (!Number.isInteger(count) || count < 0 || fillBits + count * 7 > bytes.length * 8) {
    throw new RangeError(
      `cannot read ${count} septets after ${fillBits} fill bits from ${bytes.length} octets`,
    );
  }
  const out = new Uint8Array(count);
  let bit = fillBits;
  for (let i = 0; i < count; i++) {
    const byte = bit >> 3;
    const shift = bit & 7;
    let value = (bytes[byte] as number) >> shift;
    if (shift > 1) value |= (bytes[byte + 1] as number) << (8 - shift);
    out[i] = value & 0x7f;
    bit += 7;
  }
  return out;
}
