import crypto from "node:crypto";
import { EsmClass, type SubmitSm } from "@sms/smpp";
import type { SmsPart } from "@sms/sms-encoding";

/** SMPP 3.4 §5.2.5/§5.2.6 type-of-number and numbering-plan values we use. */
const TON = { UNKNOWN: 0, INTERNATIONAL: 1, ALPHANUMERIC: 5 } as const;
const NPI = { UNKNOWN: 0, ISDN: 1 } as const;
/** registered_delivery bit 0: ask for a final delivery receipt (§5.2.17). */
const FINAL_RECEIPT = 0x01;

/**
 * The concatenation reference of a message: derived from its id, so a job retried
 * after a crash sends parts with the same reference and the handset can still join them.
 */
export function concatReference(messageId: string): number {
  return crypto.createHash("sha256").update(messageId).digest()[0]!;
}

/** How the sender id goes on the wire: an E.164 or short code numerically, anything else alphanumeric. */
export function sourceAddress(
  senderId: string,
): Pick<SubmitSm, "source_addr" | "source_addr_ton" | "source_addr_npi"> {
  if (/^\+?\d{1,15}$/.test(senderId)) {
    const international = senderId.startsWith("+") || senderId.length > 8;
    return {
      source_addr: senderId.replace(/^\+/, ""),
      source_addr_ton: international ? TON.INTERNATIONAL : TON.UNKNOWN,
      source_addr_npi: international ? NPI.ISDN : NPI.UNKNOWN,
    };
  }
  return { source_addr: senderId, source_addr_ton: TON.ALPHANUMERIC, source_addr_npi: NPI.UNKNOWN };
}

/**
 * SMPP 3.4 §7.1.1.2 relative time `YYMMDDhhmmss000R` for what is left until `end` (at least a
 * second): relative, so a carrier whose clock is off still keeps the message as long as we would.
 */
export function relativeValidity(end: Date, now: number = Date.now()): string {
  let seconds = Math.max(1, Math.ceil((end.getTime() - now) / 1000));
  const fields = [0, 0, 0, 0, 0, 0];
  // Years and months stay 0: a validity is at most 72 h (docs/messages.md#validity), so days
  // never exceed 99.
  [86_400, 3600, 60, 1].forEach((unit, i) => {
    fields[i + 2] = Math.min(99, Math.floor(seconds / unit));
    seconds -= fields[i + 2]! * unit;
  });
  return `${fields.map((n) => String(n).padStart(2, "0")).join("")}000R`;
}

/**
 * One submit_sm per part, with our own encoding: data_coding is always explicit
 * (docs/smpp.md#the-smpp-package). The carrier gets what is left of the message's validity
 * (docs/messages.md#validity).
 */
export function buildSubmitSm(
  message: { to: string; senderId: string; expiresAt?: Date | null },
  part: SmsPart,
): SubmitSm {
  // Written out, no spreads: Node 20's V8 adds every property that follows a spread through its
  // slow path, and this object cost 10–19 µs a segment that way (docs/decisions.md#spreads).
  const source = sourceAddress(message.senderId);
  const pdu: SubmitSm = {
    source_addr: source.source_addr,
    source_addr_ton: source.source_addr_ton,
    source_addr_npi: source.source_addr_npi,
    destination_addr: message.to.replace(/^\+/, ""),
    dest_addr_ton: TON.INTERNATIONAL,
    dest_addr_npi: NPI.ISDN,
    esm_class: part.udh ? EsmClass.UDHI : 0,
    registered_delivery: FINAL_RECEIPT,
    data_coding: part.dataCoding,
    short_message: part.shortMessage,
  };
  if (message.expiresAt) pdu.validity_period = relativeValidity(message.expiresAt);
  return pdu;
}
