import { checkText, decodeShortMessage, parseUdh, UnsupportedDataCodingError } from "@sms/sms-encoding";
import { CLIENT_REF_MAX_LENGTH } from "@sms/message-acceptance";
import { CommandStatus, EsmClass, type Pdu } from "@sms/smpp";
import { parseSmppTime } from "./smpp-time";

/** A submit_sm we cannot take as sent; `status` is what submit_sm_resp carries. */
export class SubmitRefusal extends Error {
  override readonly name = "SubmitRefusal";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Where a part belongs in a message the customer concatenated itself. */
export interface PartInfo {
  reference: number;
  total: number;
  seq: number;
}

/** What a submit_sm asks for, addresses as the customer wrote them. */
export interface ParsedSubmit {
  sourceAddr: string;
  destinationAddr: string;
  /** The destination as E.164 (+ added to international or bare-digit numbers). */
  to: string;
  registeredDelivery: number;
  dataCoding: number;
  /** The octets of this submit's text, without any UDH. */
  octets: Buffer;
  /** Set when this submit is one part of a longer message (UDH 8/16-bit reference or SAR TLVs). */
  part?: PartInfo;
  /** schedule_delivery_time as ISO 8601 UTC, for the acceptance path to validate; null for now. */
  scheduledAt: string | null;
  /** When validity_period ends (absolute, or relative to the submit); null for the default (docs/messages.md#validity). */
  validUntil: Date | null;
  /** Dispatch class (docs/fairness.md): priority_flag 2 or 3 is high, 0 and 1 normal. */
  priority: "high" | "normal";
  /** The customer's reference from our client_ref TLV (0x1400), as on REST; absent when not sent. */
  clientRef?: string;
}

/** data_coding values whose text we decode (SMPP 3.4 §5.2.19). */
const DECODABLE = new Set([0x00, 0x01, 0x03, 0x08]);
/** TON 1 is international (SMPP 3.4 §5.2.5). */
const TON_INTERNATIONAL = 1;

/** Reads a submit_sm's addresses, text octets and concatenation; throws SubmitRefusal. */
export function parseSubmit(pdu: Pdu, now: Date = new Date()): ParsedSubmit {
  const sourceAddr = String(pdu.source_addr ?? "");
  const destinationAddr = String(pdu.destination_addr ?? "");
  if (!destinationAddr) throw new SubmitRefusal(CommandStatus.ESME_RINVDSTADR, "destination_addr is empty");
  if (!sourceAddr) throw new SubmitRefusal(CommandStatus.ESME_RINVSRCADR, "source_addr is empty");
  const dataCoding = Number(pdu.data_coding ?? 0);
  if (!DECODABLE.has(dataCoding))
    throw new SubmitRefusal(
      CommandStatus.ESME_RSUBMITFAIL,
      new UnsupportedDataCodingError(dataCoding).message,
    );
  const esmClass = Number(pdu.esm_class ?? 0);
  const shortMessage = Buffer.isBuffer(pdu.short_message) ? pdu.short_message : Buffer.alloc(0);
  const payload = Buffer.isBuffer(pdu.message_payload) ? pdu.message_payload : undefined;
  // SMPP 3.4 §5.3.2.32: message_payload carries the text when short_message is empty; both set is an error.
  if (payload && shortMessage.length > 0)
    throw new SubmitRefusal(CommandStatus.ESME_RSUBMITFAIL, "short_message and message_payload are both set");
  let octets = payload ?? shortMessage;
  let part: PartInfo | undefined;
  if ((esmClass & EsmClass.UDHI) !== 0) {
    const concat = parseUdh(octets);
    if (!concat && (octets.length === 0 || octets[0]! + 1 > octets.length))
      throw new SubmitRefusal(
        CommandStatus.ESME_RINVESMCLASS,
        "esm_class says UDH but the header is malformed",
      );
    const headerLength = concat?.headerLength ?? octets[0]! + 1;
    if (concat && concat.total > 1)
      part = { reference: concat.reference, total: concat.total, seq: concat.seq };
    octets = octets.subarray(headerLength);
  } else if (pdu.sar_msg_ref_num !== undefined) {
    part = readSar(pdu);
  }
  const clientRef = readClientRef(pdu.client_ref);
  const scheduled = parseSmppTime(String(pdu.schedule_delivery_time ?? ""), now);
  if (scheduled === undefined)
    throw new SubmitRefusal(CommandStatus.ESME_RINVSCHED, "schedule_delivery_time is not an SMPP time");
  return {
    sourceAddr,
    destinationAddr,
    scheduledAt: scheduled ? scheduled.toISOString() : null,
    validUntil: readValidity(pdu, now, scheduled),
    // SMPP 3.4 §5.2.14: 0–3, higher is more urgent; 2 and 3 are what carriers call urgent and emergency.
    priority: Number(pdu.priority_flag ?? 0) >= 2 ? "high" : "normal",
    to: toE164(destinationAddr, Number(pdu.dest_addr_ton ?? 0)),
    registeredDelivery: Number(pdu.registered_delivery ?? 0),
    dataCoding,
    octets,
    ...(part ? { part } : {}),
    ...(clientRef === undefined ? {} : { clientRef }),
  };
}

/**
 * validity_period (SMPP 3.4 §5.2.16, §7.1): absolute, or relative to the submit (the SMSC's
 * "now", as the specification says, also for a scheduled message). One that is malformed, over
 * already, or over before the message is due can never be delivered: ESME_RINVEXPIRY.
 */
function readValidity(pdu: Pdu, now: Date, scheduled: Date | null): Date | null {
  const validUntil = parseSmppTime(String(pdu.validity_period ?? ""), now);
  if (validUntil === undefined)
    throw new SubmitRefusal(CommandStatus.ESME_RINVEXPIRY, "validity_period is not an SMPP time");
  if (validUntil && validUntil.getTime() <= Math.max(now.getTime(), scheduled?.getTime() ?? 0))
    throw new SubmitRefusal(
      CommandStatus.ESME_RINVEXPIRY,
      "validity_period ends before the message could be sent",
    );
  return validUntil;
}

/**
 * Our client_ref TLV (docs/decisions.md#client-ref-tlv): 1 to CLIENT_REF_MAX_LENGTH printable
 * ASCII characters, a trailing NUL tolerated (some clients write C strings). Refused, never cut
 * or re-encoded: a reference that came back different would match nothing on the customer's side.
 */
function readClientRef(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!Buffer.isBuffer(value))
    throw new SubmitRefusal(CommandStatus.ESME_RINVOPTPARAMVAL, "client_ref is unreadable");
  const octets = value.at(-1) === 0 ? value.subarray(0, -1) : value;
  if (octets.length === 0 || octets.length > CLIENT_REF_MAX_LENGTH)
    throw new SubmitRefusal(
      CommandStatus.ESME_RINVPARLEN,
      `client_ref (TLV 0x1400) must be 1 to ${CLIENT_REF_MAX_LENGTH} characters; it has ${octets.length}`,
    );
  if (!octets.every((octet) => octet >= 0x20 && octet <= 0x7e))
    throw new SubmitRefusal(
      CommandStatus.ESME_RINVOPTPARAMVAL,
      "client_ref (TLV 0x1400) must be printable ASCII (0x20-0x7E)",
    );
  return octets.toString("latin1");
}

function readSar(pdu: Pdu): PartInfo | undefined {
  const reference = Number(pdu.sar_msg_ref_num);
  const total = Number(pdu.sar_total_segments);
  const seq = Number(pdu.sar_segment_seqnum);
  // SMPP 3.4 §5.3.2.22-24: all three together, total 1-255, seq 1..total.
  if (![reference, total, seq].every(Number.isInteger) || total < 1 || seq < 1 || seq > total)
    throw new SubmitRefusal(CommandStatus.ESME_RSUBMITFAIL, "sar_* TLVs are incomplete or out of range");
  return total > 1 ? { reference, total, seq } : undefined;
}

/**
 * Customers write international numbers without "+" (TON 1, or TON 0 with bare digits);
 * the acceptance path wants E.164 with "+". Anything else goes through as written and
 * fails validation there (INVALID_PHONE → ESME_RINVDSTADR).
 */
function toE164(address: string, ton: number): string {
  if (address.startsWith("+")) return address;
  if (ton === TON_INTERNATIONAL || /^\d+$/.test(address)) return `+${address.replace(/^00/, "")}`;
  return address;
}

/**
 * Decodes the octets of one or more parts (in order) as one text. Octets that are no valid text
 * in their data_coding (GSM-7 0x80-0xFF, a dangling escape, odd UCS-2, a lone surrogate) are
 * refused (ESME_RSUBMITFAIL), never forwarded with U+FFFD or a space in their place.
 */
export function decodeText(octets: Buffer, dataCoding: number): string {
  try {
    checkText(octets, dataCoding);
    return decodeShortMessage(octets, dataCoding);
  } catch (error) {
    throw new SubmitRefusal(CommandStatus.ESME_RSUBMITFAIL, (error as Error).message);
  }
}
