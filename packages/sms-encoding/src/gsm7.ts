import {
  GSM7_BASIC,
  GSM7_BASIC_BY_SEPTET,
  GSM7_ESCAPE,
  GSM7_EXTENSION,
  GSM7_EXTENSION_BY_SEPTET,
} from "./gsm7-alphabet";

/** A character that the GSM 7-bit alphabet cannot carry was passed to the GSM-7 encoder. */
export class NotGsm7Error extends Error {
  override readonly name = "NotGsm7Error";

  constructor(
    readonly character: string,
    readonly index: number,
  ) {
    super(
      `character U+${character.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")} at index ${index} is not in the GSM 7-bit alphabet`,
    );
  }
}

/** Septets a character takes in GSM-7: 1 (basic table), 2 (escape + extension table) or 0 (not GSM-7). */
export function countGsm7Septets(char: string): 0 | 1 | 2 {
  if (GSM7_BASIC.has(char)) return 1;
  if (GSM7_EXTENSION.has(char)) return 2;
  return 0;
}

/** True when every character of `text` is in the GSM 7-bit basic or extension table. */
export function isGsm7(text: string): boolean {
  for (const char of text) if (countGsm7Septets(char) === 0) return false;
  return true;
}

/** Encodes text as unpacked GSM-7 septets (one per octet, escape 0x1B before extension characters), as SMPP short_message carries with data_coding 0. */
export function encodeGsm7(text: string): Uint8Array {
  const septets: number[] = [];
  let index = 0;
  // Iterate by code point so an astral character is reported whole, not as half a surrogate pair.
  for (const char of text) {
    const basic = GSM7_BASIC.get(char);
    if (basic !== undefined) septets.push(basic);
    else {
      const extension = GSM7_EXTENSION.get(char);
      // Never substitute silently: a library that maps unknown characters to "@" is how Arabic arrives as "@@@@".
      if (extension === undefined) throw new NotGsm7Error(char, index);
      septets.push(GSM7_ESCAPE, extension);
    }
    index += char.length;
  }
  return Uint8Array.from(septets);
}

/** Decodes unpacked GSM-7 septets (one per octet) to text. */
export function decodeGsm7(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i++) {
    const septet = bytes[i] as number;
    if (septet > 0x7f) {
      // Not a septet: say so visibly rather than guess (masking the top bit would invent a character).
      text += "\uFFFD";
    } else if (septet !== GSM7_ESCAPE) {
      text += GSM7_BASIC_BY_SEPTET[septet] as string;
    } else if (i + 1 >= bytes.length) {
      // A dangling escape: 3GPP TS 23.038 §6.2.1 note 1 says a receiver shows a space for it.
      text += " ";
    } else {
      const next = bytes[++i] as number;
      const extension = GSM7_EXTENSION_BY_SEPTET.get(next);
      if (extension !== undefined) text += extension;
      // ESC ESC is reserved for a further extension table: display a space (TS 23.038 §6.2.1.1).
      else if (next === GSM7_ESCAPE) text += " ";
      // Unassigned extension code: display the basic-table character instead (TS 23.038 §6.2.1.1).
      else text += next > 0x7f ? "\uFFFD" : (GSM7_BASIC_BY_SEPTET[next] as string);
    }
  }
  return text;
}
