import { commonSettings, envBoolean, envInt, loadConfig, z } from "@sms/config";
import type { SimulatorOptions } from "./simulator";

const weight = envInt(0, 0, 1_000_000);

const SimulatorSettings = z.object({
  /** Log level: error, warn, info, http, debug. */
  LOG_LEVEL: commonSettings.LOG_LEVEL,
  /** Address both listeners bind to. */
  CARRIER_SIM_HOST: z.string().default("0.0.0.0"),
  /** SMPP port (the platform's own SMPP server takes 2775). */
  CARRIER_SIM_SMPP_PORT: envInt(2776, 0, 65535),
  /** HTTP control API port. */
  CARRIER_SIM_HTTP_PORT: envInt(8776, 0, 65535),
  /** Accepted binds as "system_id:password,…"; empty accepts any system_id and password. */
  CARRIER_SIM_ACCOUNTS: z
    .string()
    .default("")
    .refine(
      (value) => value.split(",").every((pair) => pair.trim() === "" || /^[^:]+:.*$/.test(pair.trim())),
      {
        message: 'expected "system_id:password,…"',
      },
    ),
  /**
   * Bind types accepted, comma-separated (transmitter, receiver, transceiver); others are refused
   * with ESME_RBINDFAIL. "transceiver" plays an SMSC that takes only transceiver binds.
   */
  CARRIER_SIM_BIND_TYPES: z
    .string()
    .default("transmitter,receiver,transceiver")
    .transform((value) => value.split(",").map((type) => type.trim()))
    .pipe(z.array(z.enum(["transmitter", "receiver", "transceiver"])).min(1)),
  /** Delay before each submit_sm_resp, ms. */
  CARRIER_SIM_SUBMIT_LATENCY_MS: envInt(0, 0, 3_600_000),
  /** false: submit_sm is recorded and never answered (a carrier that times out). */
  CARRIER_SIM_RESPOND_TO_SUBMITS: envBoolean(true),
  /** Non-zero: every submit_sm is refused with this command_status, e.g. 8 (ESME_RSYSERR): a carrier in trouble. */
  CARRIER_SIM_REFUSE_SUBMITS_WITH: envInt(0, 0, 0xffffffff),
  /** Delay from submit to receipt, ms. */
  CARRIER_SIM_RECEIPT_DELAY_MS: envInt(200, 0, 3_600_000),
  /** Wait before a receipt is tried again (no receiver bound, not acknowledged), ms. */
  CARRIER_SIM_RECEIPT_RETRY_MS: envInt(2000, 1, 3_600_000),
  /** Weight of DELIVRD receipts for ordinary numbers. */
  CARRIER_SIM_WEIGHT_DELIVERED: envInt(100, 0, 1_000_000),
  /** Weight of UNDELIV receipts. */
  CARRIER_SIM_WEIGHT_UNDELIVERABLE: weight,
  /** Weight of REJECTD receipts. */
  CARRIER_SIM_WEIGHT_REJECTED: weight,
  /** Weight of EXPIRED receipts. */
  CARRIER_SIM_WEIGHT_EXPIRED: weight,
  /** submit_sm per second per system_id before ESME_RTHROTTLED; 0 is unlimited. */
  CARRIER_SIM_THROTTLE_PER_SECOND: envInt(0),
  /** Unacknowledged receipts per system_id before submits get ESME_RMSGQFUL. */
  CARRIER_SIM_MAX_PENDING_RECEIPTS: envInt(100000, 1),
  /** Honour the magic destination numbers of the README. */
  CARRIER_SIM_MAGIC_NUMBERS: envBoolean(true),
  /** Tries of a "…0005" number throttled before it is accepted. */
  CARRIER_SIM_MAGIC_THROTTLE_TRIES: envInt(2, 0, 1000),
  /** Received messages kept for GET /messages (oldest dropped first). */
  CARRIER_SIM_RECORD_LIMIT: envInt(10000, 1, 10_000_000),
  /** deliver_sm outstanding per bind. */
  CARRIER_SIM_WINDOW_SIZE: envInt(10, 1, 10000),
  /** A bind silent this long is unbound, ms; 0 never. */
  CARRIER_SIM_INACTIVITY_TIMEOUT_MS: envInt(120000, 0, 86_400_000),
});

export type SimulatorConfig = z.infer<typeof SimulatorSettings>;

/** Reads and checks the environment; throws ConfigError naming each bad setting. */
export function loadSimulatorConfig(env: NodeJS.ProcessEnv = process.env): SimulatorConfig {
  return loadConfig(SimulatorSettings, env);
}

/** The simulator's options from its configuration. */
export function toSimulatorOptions(config: SimulatorConfig): SimulatorOptions {
  const accounts = config.CARRIER_SIM_ACCOUNTS.split(",")
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf(":")), pair.slice(pair.indexOf(":") + 1)] as const);
  return {
    host: config.CARRIER_SIM_HOST,
    smppPort: config.CARRIER_SIM_SMPP_PORT,
    httpPort: config.CARRIER_SIM_HTTP_PORT,
    accounts: accounts.length > 0 ? Object.fromEntries(accounts) : undefined,
    bindTypes: config.CARRIER_SIM_BIND_TYPES,
    recordLimit: config.CARRIER_SIM_RECORD_LIMIT,
    windowSize: config.CARRIER_SIM_WINDOW_SIZE,
    inactivityTimeoutMs: config.CARRIER_SIM_INACTIVITY_TIMEOUT_MS,
    settings: {
      submitLatencyMs: config.CARRIER_SIM_SUBMIT_LATENCY_MS,
      receiptDelayMs: config.CARRIER_SIM_RECEIPT_DELAY_MS,
      receiptRetryMs: config.CARRIER_SIM_RECEIPT_RETRY_MS,
      outcomes: {
        delivered: config.CARRIER_SIM_WEIGHT_DELIVERED,
        undeliverable: config.CARRIER_SIM_WEIGHT_UNDELIVERABLE,
        rejected: config.CARRIER_SIM_WEIGHT_REJECTED,
        expired: config.CARRIER_SIM_WEIGHT_EXPIRED,
      },
      throttlePerSecond: config.CARRIER_SIM_THROTTLE_PER_SECOND,
      maxPendingReceipts: config.CARRIER_SIM_MAX_PENDING_RECEIPTS,
      respondToSubmits: config.CARRIER_SIM_RESPOND_TO_SUBMITS,
      refuseSubmitsWith: config.CARRIER_SIM_REFUSE_SUBMITS_WITH,
      magicNumbers: config.CARRIER_SIM_MAGIC_NUMBERS,
      magicThrottleTries: config.CARRIER_SIM_MAGIC_THROTTLE_TRIES,
    },
  };
}
