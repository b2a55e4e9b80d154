import { commonSettings, envInt, loadConfig, segmentSettings, z } from "@sms/config";

const MINUTE = 60_000;
const optionalPath = z.preprocess((value) => (value === "" ? undefined : value), z.string().optional());

const SmppServerSettings = z.object({
  ...commonSettings,
  /** Port of /healthz, /readyz and /metrics. */
  PORT: envInt(3060, 0, 65535),
  /** Address the health port and the SMPP listeners bind to. */
  HOST: z.string().default("0.0.0.0"),
  /** SMPP port for customers (docs/smpp.md#connecting); 0 picks a free one (tests). */
  SMPP_PORT: envInt(2775, 0, 65535),
  /** SMPP over TLS: its port, off unless SMPP_TLS_CERT_FILE and SMPP_TLS_KEY_FILE are set. */
  SMPP_TLS_PORT: envInt(3775, 0, 65535),
  /** PEM certificate chain of the TLS listener. */
  SMPP_TLS_CERT_FILE: optionalPath,
  /** PEM private key of the TLS listener. */
  SMPP_TLS_KEY_FILE: optionalPath,
  /** Our system_id in bind responses. */
  SMPP_SYSTEM_ID: z.string().min(1).max(15).default("SMSPLATFORM"),
  /** The customer's requests handled at once per bind; beyond it we stop reading (TCP pushes back). */
  SMPP_MAX_PENDING_REQUESTS: envInt(100, 1, 10_000),
  /** Our deliver_sm (receipts) outstanding at once per bind. */
  SMPP_DELIVER_WINDOW: envInt(50, 1, 1000),
  /** How long a deliver_sm or unbind waits for the customer's response, ms. */
  SMPP_RESPONSE_TIMEOUT_MS: envInt(10_000, 100, 10 * MINUTE),
  /** A bind that sends no PDU (not even enquire_link) for this long is unbound, ms; 0 never. */
  SMPP_INACTIVITY_TIMEOUT_MS: envInt(2 * MINUTE, 0, 60 * MINUTE),
  /** Wait before checking a bind's password after one failure from its address, doubling per failure, ms. */
  BIND_FAILURE_DELAY_MS: envInt(250, 0, 60_000),
  /** The longest such wait, ms. */
  BIND_FAILURE_MAX_DELAY_MS: envInt(10_000, 0, 10 * MINUTE),
  /** Failed binds from one address (any system_id) before they slow down its other system_ids too. */
  BIND_ADDRESS_FREE_FAILURES: envInt(10, 0, 100_000),
  /** Failed binds are forgotten this long after an address's last attempt, ms. */
  BIND_FAILURE_WINDOW_MS: envInt(15 * MINUTE, 1000, 24 * 60 * MINUTE),
  /** Password checks (scrypt) running at once in this process; the rest wait, in turn per address. */
  BIND_HASH_CONCURRENCY: envInt(2, 1, 64),
  /** Failed binds on one connection before it is closed. */
  SMPP_MAX_BIND_ATTEMPTS: envInt(3, 1, 100),
  /** A connection that has not bound this long after it opened is closed (enquire_link does not extend it), ms. */
  SMPP_BIND_TIMEOUT_MS: envInt(30_000, 100, 10 * MINUTE),
  /** Connections open at once, all addresses together; more are closed at once. */
  SMPP_MAX_CONNECTIONS: envInt(2000, 1, 1_000_000),
  /** Connections open at once from one client address (IPv6: one /64); more are closed at once. */
  SMPP_MAX_CONNECTIONS_PER_ADDRESS: envInt(20, 1, 1_000_000),
  /** A bind's slot in the account's limit (shared by replicas in Redis) lapses this long after its replica died, ms. */
  BIND_LEASE_MS: envInt(60_000, 1000, 60 * MINUTE),
  /**
   * How often every bound account's binds are checked against its credentials, status and bind
   * limit, ms: the fallback for a change notification lost with the listening connection.
   */
  BIND_REVIEW_INTERVAL_MS: envInt(30_000, 100, 60 * MINUTE),
  /** Parts of a concatenated message that stay incomplete this long are refused, ms. */
  CONCAT_TIMEOUT_MS: envInt(2 * MINUTE, 1000, 24 * 60 * MINUTE),
  /** A receipt the customer did not acknowledge is sent again after this long, ms. */
  RECEIPT_RETRY_MS: envInt(30_000, 100, 60 * MINUTE),
  /** How often pending receipts and incomplete concatenations are looked at, ms. */
  RECEIPT_SWEEP_MS: envInt(1000, 50, MINUTE),
  /** smpp.dlr-out jobs processed at once. */
  DLR_OUT_CONCURRENCY: envInt(100, 1, 1000),
  /** Acceptance transactions in flight at once (group commit; one account's serialize on its balance row anyway). */
  ACCEPT_CONCURRENT_FLUSHES: envInt(1, 1, 16),
  ...segmentSettings,
  /** Validity of a message that names none, in seconds (48 h: docs/messages.md#validity); from when it is due. */
  MESSAGE_VALIDITY_DEFAULT_SECONDS: envInt(172_800, 60, 259_200),
  /** Seconds an account's limits and sender ids are cached per process. */
  ACCOUNT_CACHE_SECONDS: envInt(5, 0, 3600),
  /** Age in ms after which a dispatch_outbox row is re-enqueued by this process's relay. */
  OUTBOX_STALE_AFTER_MS: envInt(10_000, 100, 60 * MINUTE),
  /** Bound on a graceful stop: unbinds, in-flight submits and receipts get this long, ms. */
  SHUTDOWN_TIMEOUT_MS: envInt(10_000, 100, 2 * MINUTE),
});

export type SmppServerConfig = z.infer<typeof SmppServerSettings>;

/** Reads and validates the environment; throws a ConfigError naming every bad setting. */
export function loadSmppServerConfig(env: NodeJS.ProcessEnv = process.env): SmppServerConfig {
  const config = loadConfig(SmppServerSettings, env);
  if (Boolean(config.SMPP_TLS_CERT_FILE) !== Boolean(config.SMPP_TLS_KEY_FILE))
    throw new Error("SMPP_TLS_CERT_FILE and SMPP_TLS_KEY_FILE must be set together");
  return config;
}
