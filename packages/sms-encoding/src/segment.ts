import { encodeGsm7 } from "./gsm7";
import { planSegments, SEGMENT_LIMITS, type SmsEncoding } from "./segment-plan";
import { encodeUcs2 } from "./ucs2";
import { concatUdh } from "./udh";

/** What a text costs to send. */
export interface TextAnalysis {
  encoding: SmsEncoding;
  /** Number of SMS parts (what is billed). */
  segments: number;
  /** Septets (GSM-7, extension characters count 2) or UTF-16 code units (UCS-2). */
  units: number;
  /** Capacity of one part in effect: 160/70 for a single part, 153/67 once concatenated. */
  unitsPerSegment: number;
}

/** One SMS part, ready for a submit_sm. */
export interface SmsPart {
  /** SMPP data_coding: 0x00 GSM-7 (SMSC default alphabet) or 0x08 UCS-2. */
  dataCoding: 0x00 | 0x08;
  /** Concatenation UDH, or null for a message of one part. */
  udh: Buffer | null;
  /** The text only: unpacked GSM-7 septets (one per octet) or UCS-2 big-endian octets, without the UDH. */
  payload: Buffer;
  /** udh + payload for short_message; when udh is not null, esm_class must carry UDHI (0x40). */
  shortMessage: Buffer;
  /** This part's text. */
  text: string;
}

/** Options for {@link splitMessage}. */
export interface SplitOptions {
  /** Concatenation reference shared by all parts of this message, 0–255 (8-bit, TS 23.040 §9.2.3.24.1). */
  reference: number;
}

/** Picks the encoding of a text and counts its segments by actually splitting it. */
export function analyzeText(text: string): TextAnalysis {
  const { encoding, units, parts } = planSegments(text);
  const limits = SEGMENT_LIMITS[encoding];
  return {
    encoding,
    segments: parts.length,
    units,
    unitsPerSegment: parts.length === 1 ? limits.single : limits.multi,
  };
}

/** Splits a text into SMS parts with their data_coding, concatenation UDH and encoded payload. */
export function splitMessage(text: string, options: SplitOptions): SmsPart[] {
  const { reference } = options;
  if (!Number.isInteger(reference) || reference < 0 || reference > 255) {
    throw new RangeError(`reference must be an integer from 0 to 255, got ${reference}`);
  }
  const { encoding, parts } = planSegments(text);
  // The UDH counts parts in one octet (TS 23.040 §9.2.3.24.1); callers enforce a much lower limit first.
  if (parts.length > 255)
    throw new RangeError(`a message cannot have more than 255 parts, this one needs ${parts.length}`);
  const isGsm = encoding === "GSM-7";
  return parts.map((part, index): SmsPart => {
    const payload = isGsm ? Buffer.from(encodeGsm7(part.text)) : encodeUcs2(part.text);
    const udh = parts.length > 1 ? concatUdh(reference, parts.length, index + 1) : null;
    return {
      dataCoding: isGsm ? 0x00 : 0x08,
      udh,
      payload,
      shortMessage: Buffer.concat(udh ? [udh, payload] : [payload]),
      text: part.text,
    };
  });
}
