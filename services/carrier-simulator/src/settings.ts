import { z } from "@sms/config";
import type { OutcomeMix } from "./outcomes";
import type { DataCoding0 } from "./text-decoding";

/** Behaviour that can change while the simulator runs (POST /control). */
export interface RuntimeSettings {
  /** Delay before each submit_sm_resp, ms. */
  submitLatencyMs: number;
  /** Delay between submit_sm_resp and the receipt, ms. */
  receiptDelayMs: number;
  /** Wait before trying a receipt again when no receiver is bound or it was not acknowledged, ms. */
  receiptRetryMs: number;
  /** Receipt outcome weights for ordinary numbers. */
  outcomes: OutcomeMix;
  /** submit_sm per second per system_id before ESME_RTHROTTLED; 0 is unlimited. */
  throttlePerSecond: number;
  /** Unacknowledged receipts per system_id before ESME_RMSGQFUL. */
  maxPendingReceipts: number;
  /** False: submit_sm is recorded and never answered (for response-timeout tests). */
  respondToSubmits: boolean;
  /** Non-zero: every submit_sm is refused with this command_status (a carrier in trouble: 8 is ESME_RSYSERR). */
  refuseSubmitsWith: number;
  /** Honour the magic destination numbers (README). */
  magicNumbers: boolean;
  /** Tries of a "…0005" number answered ESME_RTHROTTLED before it is accepted. */
  magicThrottleTries: number;
  /** message_id style: 16 hexadecimal digits, or a plain decimal counter from 1 (restartIdCounter starts it over). */
  messageIds: "hex" | "decimal";
  /** How receipts quote the id: as given, its decimal id in hexadecimal, or its hexadecimal id in decimal. */
  receiptIdForm: "as_is" | "hex" | "decimal";
  /** Zeros put before the id in receipts (carriers that pad). */
  receiptIdPadding: number;
  /** Every receipt is sent, and acknowledged, before its submit_sm_resp (needs a receiver bind). */
  receiptsBeforeResponses: boolean;
  /** How data_coding 0 is read: GSM-7 a septet per octet, GSM-7 packed, or Latin-1 (SMSCs differ). */
  dataCoding0: DataCoding0;
}

export const DEFAULT_RUNTIME_SETTINGS: RuntimeSettings = {
  submitLatencyMs: 0,
  receiptDelayMs: 200,
  receiptRetryMs: 2000,
  outcomes: { delivered: 100, undeliverable: 0, rejected: 0, expired: 0 },
  throttlePerSecond: 0,
  maxPendingReceipts: 100000,
  respondToSubmits: true,
  refuseSubmitsWith: 0,
  magicNumbers: true,
  magicThrottleTries: 2,
  messageIds: "hex",
  receiptIdForm: "as_is",
  receiptIdPadding: 0,
  receiptsBeforeResponses: false,
  dataCoding0: "gsm7",
};

const weight = z.number().min(0).max(1_000_000);
const ms = z.number().int().min(0).max(3_600_000);

/** Body of POST /control: any subset of the runtime settings. */
export const ControlUpdate = z
  .object({
    submitLatencyMs: ms,
    receiptDelayMs: ms,
    receiptRetryMs: ms.min(1),
    outcomes: z
      .object({ delivered: weight, undeliverable: weight, rejected: weight, expired: weight })
      .partial()
      .strict(),
    throttlePerSecond: z.number().int().min(0),
    maxPendingReceipts: z.number().int().min(1),
    respondToSubmits: z.boolean(),
    refuseSubmitsWith: z.number().int().min(0).max(0xffffffff),
    magicNumbers: z.boolean(),
    magicThrottleTries: z.number().int().min(0).max(1000),
    messageIds: z.enum(["hex", "decimal"]),
    receiptIdForm: z.enum(["as_is", "hex", "decimal"]),
    receiptIdPadding: z.number().int().min(0).max(20),
    receiptsBeforeResponses: z.boolean(),
    dataCoding0: z.enum(["gsm7", "gsm7-packed", "latin1"]),
  })
  .partial()
  .strict();
export type ControlUpdate = z.infer<typeof ControlUpdate>;

/** Applies `update` to `settings` in place and returns them. */
export function applyControlUpdate(settings: RuntimeSettings, update: ControlUpdate): RuntimeSettings {
  const { outcomes, ...rest } = update;
  Object.assign(settings, rest);
  if (outcomes) settings.outcomes = { ...settings.outcomes, ...outcomes };
  return settings;
}
