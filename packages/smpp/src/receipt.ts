import type { Pdu } from "./codec";
import { EsmClass } from "./pdu-types";

/** Where a receipt says a message (segment) is. */
export type ReceiptState =
  "delivered" | "undeliverable" | "rejected" | "expired" | "deleted" | "unknown" | "accepted" | "enroute";

/** message_state TLV values (SMPP 3.4 §5.2.28). */
export const MessageState = {
  ENROUTE: 1,
  DELIVERED: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIVERABLE: 5,
  ACCEPTED: 6,
  UNKNOWN: 7,
  REJECTED: 8,
} as const;

/** The stat: words of the receipt text (SMPP 3.4 appendix B). */
export const ReceiptStat = {
  delivered: "DELIVRD",
  undeliverable: "UNDELIV",
  rejected: "REJECTD",
  expired: "EXPIRED",
  deleted: "DELETED",
  unknown: "UNKNOWN",
  accepted: "ACCEPTD",
  enroute: "ENROUTE",
} as const satisfies Record<ReceiptState, string>;

const STATE_BY_MESSAGE_STATE: Record<number, ReceiptState> = {
  1: "enroute",
  2: "delivered",
  3: "expired",
  4: "deleted",
  5: "undeliverable",
  6: "accepted",
  7: "unknown",
  8: "rejected",
};

/** Fields of a receipt's text form; dates as Date (written in UTC) or already formatted. */
export interface ReceiptTextFields {
  id: string;
  sub?: number;
  dlvrd?: number;
  submitDate: Date | string;
  doneDate: Date | string;
  stat: string;
  err?: number | string;
  text?: string;
}

/** A parsed delivery receipt; raw strings kept for the record. */
export interface Receipt {
  /** receipted_message_id when present, else the text's id. */
  messageId: string;
  state: ReceiptState;
  /** True for states after which nothing changes (not accepted, enroute or unknown). */
  isFinal: boolean;
  stat?: string;
  messageState?: number;
  err?: string;
  sub?: string;
  dlvrd?: string;
  submitDate?: string;
  doneDate?: string;
  text?: string;
}

/** Writes the appendix B text: `id:… sub:001 dlvrd:001 submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:…`. */
export function formatReceiptText(fields: ReceiptTextFields): string {
  const { id, sub = 1, dlvrd = 0, submitDate, doneDate, stat, err = 0, text = "" } = fields;
  const pad = (value: number | string) => String(value).padStart(3, "0");
  return `id:${id} sub:${pad(sub)} dlvrd:${pad(dlvrd)} submit date:${formatReceiptDate(submitDate)} done date:${formatReceiptDate(doneDate)} stat:${stat} err:${pad(err)} text:${text}`;
}

/** YYMMDDhhmm in UTC. */
export function formatReceiptDate(date: Date | string): string {
  if (typeof date === "string") return date;
  const two = (value: number) => String(value).padStart(2, "0");
  return `${two(date.getUTCFullYear() % 100)}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}`;
}

/** Reads YYMMDDhhmm or YYMMDDhhmmss as UTC (carriers rarely say their zone); undefined when it is not one. */
export function parseReceiptDate(value: string | undefined): Date | undefined {
  const match = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?$/.exec(value ?? "");
  if (!match) return undefined;
  const [yy = 0, mo = 0, dd = 0, hh = 0, mi = 0, ss = 0] = match.slice(1).map((part) => Number(part ?? 0));
  if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59) return undefined;
  return new Date(Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss));
}

const KEY = /(?:^|[\s,;])(id|sub|dlvrd|submit[ _]date|done[ _]date|stat|err|text)\s*:/gi;

/**
 * Reads the receipt text loosely: keys in any case, in any order, any missing;
 * `text:` runs to the end (appendix B puts it last; it may itself contain "stat:").
 */
export function parseReceiptText(text: string): Record<string, string> {
  const found: Array<{ key: string; keyStart: number; valueStart: number }> = [];
  for (const match of text.matchAll(KEY)) {
    const key = match[1]!.toLowerCase().replace("_", " ");
    found.push({
      key,
      keyStart: match.index + match[0].indexOf(match[1]!),
      valueStart: match.index + match[0].length,
    });
    if (key === "text") break;
  }
  const fields: Record<string, string> = {};
  found.forEach((entry, i) => {
    const end = entry.key === "text" ? text.length : (found[i + 1]?.keyStart ?? text.length);
    const value = text.slice(entry.valueStart, end);
    fields[entry.key] ??= entry.key === "text" ? value : value.trim();
  });
  return fields;
}

/** The state a stat word means: DELIVRD, "DELIVERED", "undeliv", … */
export function stateFromStat(stat: string): ReceiptState {
  const word = stat.trim().toUpperCase();
  if (word.startsWith("DELIV")) return "delivered";
  if (word.startsWith("UNDEL") || word.startsWith("FAIL")) return "undeliverable";
  if (word.startsWith("REJEC")) return "rejected";
  if (word.startsWith("EXPIR")) return "expired";
  if (word.startsWith("DELET")) return "deleted";
  if (word.startsWith("ACCEP")) return "accepted";
  if (word.startsWith("ENROU")) return "enroute";
  return "unknown";
}

/** True once a segment cannot change any more. */
export function isFinalReceiptState(state: ReceiptState): boolean {
  return state !== "accepted" && state !== "enroute" && state !== "unknown";
}

/**
 * Reads a deliver_sm as a delivery receipt; undefined when it is not one (an MO message).
 * Prefers the receipted_message_id and message_state TLVs; falls back on the text.
 */
export function parseReceipt(pdu: Pdu): Receipt | undefined {
  const esmClass = Number(pdu.esm_class ?? 0);
  const fields = parseReceiptText(receiptBodyText(pdu, esmClass));
  const tlvId =
    typeof pdu.receipted_message_id === "string" && pdu.receipted_message_id.trim() !== ""
      ? pdu.receipted_message_id.trim()
      : undefined;
  const textId = fields.id?.split(/\s/)[0];
  const typeBits = esmClass & EsmClass.MESSAGE_TYPE_MASK;
  const looksLikeReceipt =
    typeBits === EsmClass.DELIVERY_RECEIPT ||
    typeBits === 0x20 ||
    tlvId !== undefined ||
    fields.stat !== undefined;
  const messageId = tlvId ?? textId;
  if (!looksLikeReceipt || !messageId) return undefined;
  const messageState = typeof pdu.message_state === "number" ? pdu.message_state : undefined;
  const state =
    (messageState !== undefined ? STATE_BY_MESSAGE_STATE[messageState] : undefined) ??
    (fields.stat ? stateFromStat(fields.stat) : "unknown");
  return {
    messageId,
    state,
    isFinal: isFinalReceiptState(state),
    stat: fields.stat,
    messageState,
    err: fields.err,
    sub: fields.sub,
    dlvrd: fields.dlvrd,
    submitDate: fields["submit date"],
    doneDate: fields["done date"],
    text: fields.text,
  };
}

/**
 * Forms under which a carrier may quote the same message id: as given, and its
 * hexadecimal/decimal twin (some carriers answer submit_sm with a hex id and quote it
 * in decimal in the receipt, or the other way round). Look a receipt up by any of them.
 */
export function messageIdCandidates(id: string): string[] {
  const trimmed = id.trim();
  const candidates = new Set([trimmed]);
  if (/^[0-9]{1,30}$/.test(trimmed)) {
    const hex = BigInt(trimmed).toString(16);
    candidates.add(hex).add(hex.toUpperCase());
  }
  if (/^[0-9a-f]{1,24}$/i.test(trimmed)) candidates.add(BigInt(`0x${trimmed}`).toString(10));
  return [...candidates];
}

function receiptBodyText(pdu: Pdu, esmClass: number): string {
  const candidate =
    Buffer.isBuffer(pdu.short_message) && pdu.short_message.length > 0
      ? pdu.short_message
      : pdu.message_payload;
  if (!Buffer.isBuffer(candidate)) return "";
  let body: Buffer = candidate;
  if (esmClass & EsmClass.UDHI && body.length > 0) body = body.subarray(body[0]! + 1);
  // Receipts are ASCII text; a few carriers send them as UCS-2 (data_coding 8).
  if (pdu.data_coding === 8)
    return Buffer.from(body.subarray(0, body.length & ~1))
      .swap16()
      .toString("utf16le");
  return body.toString("latin1");
}
