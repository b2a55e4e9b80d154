/** Encodes text as big-endian UTF-16 (data_coding 8); an astral character goes as its surrogate pair, as carriers and handsets expect. */
export function encodeUcs2(text: string): Buffer {
  // Node has no UTF-16BE codec: encode little-endian, then swap each pair of octets in place.
  return Buffer.from(text, "utf16le").swap16();
}

/** Decodes big-endian UTF-16 octets to text; an odd trailing octet becomes U+FFFD. */
export function decodeUcs2(bytes: Uint8Array): string {
  const even = bytes.length & ~1;
  // Copy before swapping: swap16() works in place and the caller's buffer is not ours to change.
  const text = Buffer.from(bytes.subarray(0, even)).swap16().toString("utf16le");
  return even === bytes.length ? text : `${text}\uFFFD`;
}
