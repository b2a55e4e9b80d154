import { setTimeout as delay } from "node:timers/promises";
import {
  CommandStatus,
  MessageState,
  type Pdu,
  type ServerResponse,
  type SmppServerSession,
} from "@sms/smpp";
import type { MessageLog, MessageStatus, ReceivedMessage } from "./message-log";
import { planSubmit, type ReceiptOutcome } from "./outcomes";
import { buildReceipt, type ReceiptSender } from "./receipts";
import type { RuntimeSettings } from "./settings";
import { decodeShortMessage } from "./text-decoding";
import type { PerSecondLimiter } from "./throttle";

/** Counters of the SMPP side, for GET /stats and tests. */
export interface SubmitCounters {
  received: number;
  accepted: number;
  refused: number;
  /** submit_sm received and not yet answered, now. */
  inFlight: number;
  /** Most submit_sm one bind had unanswered at once: the client's window as seen from here. */
  maxInFlightPerBind: number;
}

/** What the handlers share with the rest of the simulator. */
export interface SmscState {
  settings: RuntimeSettings;
  log: MessageLog;
  receipts: ReceiptSender;
  limiter: PerSecondLimiter;
  counters: SubmitCounters;
  /** Tries per system_id and "…0005" number, for the throttle-first-tries rule. */
  magicTries: Map<string, number>;
  nextMessageId: () => string;
}

/** The id as this carrier's receipts quote it (settings receiptIdForm and receiptIdPadding). */
export function quoteReceiptId(id: string, settings: RuntimeSettings): string {
  let quoted = id;
  if (settings.receiptIdForm === "hex" && /^\d+$/.test(id)) quoted = BigInt(id).toString(16);
  if (settings.receiptIdForm === "decimal" && /^[0-9a-f]+$/i.test(id))
    quoted = BigInt(`0x${id}`).toString(10);
  return "0".repeat(settings.receiptIdPadding) + quoted;
}

const QUERY_STATE: Record<MessageStatus, number> = {
  accepted: MessageState.ENROUTE,
  unanswered: MessageState.UNKNOWN,
  refused: MessageState.REJECTED,
  delivered: MessageState.DELIVERED,
  undeliverable: MessageState.UNDELIVERABLE,
  rejected: MessageState.REJECTED,
  expired: MessageState.EXPIRED,
};

/** Answers the requests a bound ESME may send: submit_sm and query_sm are simulated, the rest refused. */
export function createRequestHandler(
  state: SmscState,
): (pdu: Pdu, session: SmppServerSession) => Promise<ServerResponse> {
  const inFlightBySession = new WeakMap<SmppServerSession, number>();
  const track = (session: SmppServerSession, delta: number) => {
    const count = (inFlightBySession.get(session) ?? 0) + delta;
    inFlightBySession.set(session, count);
    state.counters.inFlight += delta;
    state.counters.maxInFlightPerBind = Math.max(state.counters.maxInFlightPerBind, count);
  };
  return async (pdu, session) => {
    if (pdu.command === "query_sm") return answerQuery(state, pdu);
    if (pdu.command !== "submit_sm") return { status: CommandStatus.ESME_RINVCMDID };
    track(session, +1);
    try {
      return await answerSubmit(state, pdu, session.bind?.systemId ?? "");
    } finally {
      track(session, -1);
    }
  };
}

async function answerSubmit(state: SmscState, pdu: Pdu, systemId: string): Promise<ServerResponse> {
  const { settings, counters } = state;
  counters.received += 1;
  const message = recordOf(pdu, systemId, settings);
  const refuse = (status: number): ServerResponse => {
    counters.refused += 1;
    Object.assign(message, { status: "refused", submitStatus: status });
    state.log.add(message);
    return { status };
  };
  if (settings.refuseSubmitsWith !== 0) return refuse(settings.refuseSubmitsWith);
  if (!state.limiter.tryTake(systemId, settings.throttlePerSecond))
    return refuse(CommandStatus.ESME_RTHROTTLED);
  if (state.receipts.pending(systemId) >= settings.maxPendingReceipts)
    return refuse(CommandStatus.ESME_RMSGQFUL);
  const plan = planSubmit(message.to, {
    mix: settings.outcomes,
    magicNumbers: settings.magicNumbers,
    magicThrottleTries: settings.magicThrottleTries,
    priorTries: settings.magicNumbers ? countTry(state, systemId, message.to) : 0,
  });
  if (plan.kind === "ignore" || !settings.respondToSubmits) {
    state.log.add(message);
    return new Promise<never>(() => undefined); // never answered: the ESME's response timeout fires
  }
  if (settings.submitLatencyMs > 0) await delay(settings.submitLatencyMs);
  if (plan.kind === "refuse") return refuse(plan.status);
  counters.accepted += 1;
  if (plan.emptyMessageId) {
    Object.assign(message, { status: "accepted", submitStatus: CommandStatus.ESME_ROK });
    state.log.add(message);
    return { fields: { message_id: "" } };
  }
  Object.assign(message, {
    messageId: state.nextMessageId(),
    status: "accepted",
    submitStatus: CommandStatus.ESME_ROK,
  });
  state.log.add(message);
  if (plan.receipt !== "none" && wantsReceipt(message.registeredDelivery, plan.receipt)) {
    const job = {
      systemId,
      fields: buildReceipt(
        message,
        plan.receipt,
        new Date(Date.now() + settings.receiptDelayMs),
        quoteReceiptId(message.messageId!, settings),
      ),
      onAcknowledged: () =>
        Object.assign(message, { status: plan.receipt, receiptsSent: message.receiptsSent + 1 }),
    };
    if (plan.receiptBeforeResponse || settings.receiptsBeforeResponses) await state.receipts.sendFirst(job);
    else state.receipts.enqueue(job, settings.receiptDelayMs);
    if (plan.duplicateReceipt) state.receipts.enqueue(job, settings.receiptDelayMs);
  }
  return { fields: { message_id: message.messageId } };
}

function answerQuery(state: SmscState, pdu: Pdu): ServerResponse {
  const message = state.log.get(String(pdu.message_id ?? ""));
  if (!message) return { status: CommandStatus.ESME_RINVMSGID };
  return {
    fields: {
      message_id: message.messageId,
      final_date: "",
      message_state: QUERY_STATE[message.status],
      error_code: 0,
    },
  };
}

/** registered_delivery bits 0-1 (SMPP 3.4 §5.2.17): 1 = receipt on any outcome, 2 = on failure only. */
function wantsReceipt(registeredDelivery: number, outcome: ReceiptOutcome): boolean {
  const request = registeredDelivery & 0x03;
  return request === 1 || (request === 2 && outcome !== "delivered");
}

function countTry(state: SmscState, systemId: string, destination: string): number {
  const digits = destination.replace(/\D/g, "");
  if (!digits.endsWith("0005")) return 0;
  const key = `${systemId}|${digits}`;
  const prior = state.magicTries.get(key) ?? 0;
  if (state.magicTries.size > 10000) state.magicTries.clear(); // bounded memory
  state.magicTries.set(key, prior + 1);
  return prior;
}

function recordOf(pdu: Pdu, systemId: string, settings: RuntimeSettings): ReceivedMessage {
  const shortMessage = Buffer.isBuffer(pdu.short_message) ? pdu.short_message : Buffer.alloc(0);
  const payload = Buffer.isBuffer(pdu.message_payload) ? pdu.message_payload : undefined;
  const raw = shortMessage.length === 0 && payload ? payload : shortMessage;
  const dataCoding = Number(pdu.data_coding ?? 0);
  const esmClass = Number(pdu.esm_class ?? 0);
  const decoded = decodeShortMessage(raw, dataCoding, esmClass, settings.dataCoding0);
  return {
    messageId: undefined,
    systemId,
    receivedAt: new Date().toISOString(),
    from: String(pdu.source_addr ?? ""),
    to: String(pdu.destination_addr ?? ""),
    dataCoding,
    esmClass,
    registeredDelivery: Number(pdu.registered_delivery ?? 0),
    validityPeriod: String(pdu.validity_period ?? ""),
    text: decoded.text,
    rawHex: raw.toString("hex"),
    segment: decoded.segment,
    submitStatus: undefined,
    status: "unanswered",
    receiptsSent: 0,
  };
}
