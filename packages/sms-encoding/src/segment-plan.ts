import { countGsm7Septets } from "./gsm7";

/** The alphabet a message goes out in: GSM-7 (data_coding 0) or UCS-2 (data_coding 8). */
export type SmsEncoding = "GSM-7" | "UCS-2";

/**
 * Units per part: septets for GSM-7, UTF-16 code units for UCS-2. One part fills all 140 octets of
 * TP-UD; a concatenated part gives 6 of them to the UDH `05 00 03 ref total seq` plus, for GSM-7,
 * 1 fill bit: (140 - 6) * 8 - 1 = 1071 bits = 153 septets; (140 - 6) / 2 = 67 units
 * (3GPP TS 23.040 §9.2.3.24 and §9.2.3.24.1).
 */
export const SEGMENT_LIMITS: Readonly<Record<SmsEncoding, { single: number; multi: number }>> = {
  "GSM-7": { single: 160, multi: 153 },
  "UCS-2": { single: 70, multi: 67 },
};

/** One part's text and the units it takes. */
export interface PlannedPart {
  text: string;
  units: number;
}

/** How a text goes out: its alphabet, its total units and its parts. */
export interface SegmentPlan {
  encoding: SmsEncoding;
  units: number;
  parts: PlannedPart[];
}

/** A character (a whole code point) with the units it takes; never divided between parts. */
type Piece = readonly [char: string, units: number];

function toPieces(text: string): { encoding: SmsEncoding; pieces: Piece[] } {
  const gsm: Piece[] = [];
  for (const char of text) {
    const septets = countGsm7Septets(char);
    if (septets === 0) {
      // Counting UTF-16 code units: an astral character is a surrogate pair, 2 units, kept together.
      return { encoding: "UCS-2", pieces: Array.from(text, (c): Piece => [c, c.length]) };
    }
    // An extension character is escape + septet, 2 units, kept together (never a dangling 0x1B).
    gsm.push([char, septets]);
  }
  return { encoding: "GSM-7", pieces: gsm };
}

/** Splits a text into the parts it is sent as; counting is done by this split, so boundary adjustments are included. */
export function planSegments(text: string): SegmentPlan {
  const { encoding, pieces } = toPieces(text);
  const units = pieces.reduce((sum, [, n]) => sum + n, 0);
  const limits = SEGMENT_LIMITS[encoding];
  if (units <= limits.single) return { encoding, units, parts: [{ text, units }] };
  const parts: PlannedPart[] = [];
  let current: PlannedPart = { text: "", units: 0 };
  for (const [char, n] of pieces) {
    // Greedy fill; a 2-unit piece that would overflow starts the next part whole.
    if (current.units + n > limits.multi) {
      parts.push(current);
      current = { text: "", units: 0 };
    }
    current.text += char;
    current.units += n;
  }
  parts.push(current);
  return { encoding, units, parts };
}
