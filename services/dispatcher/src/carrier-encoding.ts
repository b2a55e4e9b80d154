import { fillBitsAfterUdh, packSeptets, type SmsPart } from "@sms/sms-encoding";

/**
 * What a carrier takes for data_coding 0 (carriers.gsm7_encoding): GSM-7 one septet per octet
 * (`unpacked`, what most SMPP carriers expect and our encoder writes), GSM-7 `packed` 7 bits per
 * septet, or `latin1` (an SMSC whose default alphabet is ISO-8859-1: `@ £ _` go as 0x40 0xA3 0x5F,
 * not as GSM-7's 0x00 0x01 0x11). UCS-2 parts go out as they are on every carrier.
 */
export const GSM7_ENCODINGS = ["unpacked", "packed", "latin1"] as const;
export type Gsm7Encoding = (typeof GSM7_ENCODINGS)[number];

// TS 23.038 §6.1.2.3.1: when 7 bits are left over at the end, a CR fills them, so that a receiver
// counting septets from octets does not read an extra "@".
const CR = 0x0d;

/** True when the carrier can carry every part as charged: a Latin-1 SMSC has no Greek capitals and no €. */
export function canCarry(parts: readonly SmsPart[], encoding: Gsm7Encoding): boolean {
  if (encoding !== "latin1") return true;
  return parts.every(
    (part) => part.dataCoding !== 0x00 || [...part.text].every((char) => char.charCodeAt(0) <= 0xff),
  );
}

/** The part as this carrier takes it: same text, same UDH, the payload in the carrier's data_coding 0 form. */
export function encodeForCarrier(part: SmsPart, encoding: Gsm7Encoding): SmsPart {
  if (part.dataCoding !== 0x00 || encoding === "unpacked") return part;
  let payload: Buffer;
  if (encoding === "latin1") {
    payload = Buffer.from(part.text, "latin1");
  } else {
    const fillBits = part.udh ? fillBitsAfterUdh(part.udh.length) : 0;
    const septets = [...part.payload];
    if ((fillBits + septets.length * 7) % 8 === 1) septets.push(CR);
    payload = Buffer.from(packSeptets(septets, fillBits));
  }
  return { ...part, payload, shortMessage: Buffer.concat(part.udh ? [part.udh, payload] : [payload]) };
}
