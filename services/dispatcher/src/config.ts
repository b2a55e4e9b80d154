import { commonSettings, envChoices, envInt, loadConfig, segmentSettings, z } from "@sms/config";
import { PRIORITIES } from "@sms/queues";
import { encryptionKeySetting } from "@sms/secret-box";

const DispatcherSettings = z.object({
  ...commonSettings,
  /** Port of /healthz and /readyz. */
  PORT: envInt(3020, 0, 65535),
  /**
   * Dispatch jobs (batches of up to 100 messages of one account) run in parallel per class:
   * each class has slots of its own, so the weights are these numbers and no class starves.
   */
  DISPATCH_CONCURRENCY_HIGH: envInt(24, 1, 1000),
  DISPATCH_CONCURRENCY_NORMAL: envInt(16, 1, 1000),
  DISPATCH_CONCURRENCY_BULK: envInt(8, 1, 1000),
  /**
   * The classes this replica works, comma-separated. Replicas of `high` alone, beside replicas
   * of `normal,bulk`, give one-time passwords a lane of their own: processes (or pods) whose CPU
   * a campaign never takes, and carrier windows it never fills (docs/fairness.md#lanes).
   */
  DISPATCH_CLASSES: envChoices(PRIORITIES),
  /** Tries of a message that end in "retry later" before it is left to the scheduler's reconciler. */
  DISPATCH_MAX_ATTEMPTS: envInt(10, 1, 100),
  /** Wait before a message's first retry, doubled on each further one (capped at 5 minutes). */
  DISPATCH_RETRY_BASE_MS: envInt(1000, 10, 300_000),
  /** How long a job's claim on its messages lasts (a dead job's messages go back to the reconciler after it). */
  DISPATCH_CLAIM_TTL_MS: envInt(600_000, 10_000, 86_400_000),
  /**
   * Submits of one segment left without an answer (response timeout, lost connection, crash) before
   * its message fails CARRIER_TIMEOUT: each may be a copy on the handset. Counted on the segment, so
   * retries, the reconciler and restarts never start it over.
   */
  SEGMENT_MAX_UNANSWERED_SUBMITS: envInt(3, 1, 20),
  /** How long a submit_sm waits for its response before its outcome counts as unknown. */
  SUBMIT_TIMEOUT_MS: envInt(10000, 100, 120000),
  /** enquire_link period on every bind. */
  ENQUIRE_LINK_INTERVAL_MS: envInt(30000, 0, 600000),
  /** How often carriers and routes are re-read from the database. */
  CARRIER_REFRESH_MS: envInt(10000, 100, 600000),
  /** BullMQ job lock: a dead dispatcher's jobs are taken over after about this long. */
  DISPATCH_LOCK_MS: envInt(30000, 500, 600000),
  /** How often BullMQ looks for stalled jobs (those whose lock expired). */
  DISPATCH_STALLED_CHECK_MS: envInt(15000, 200, 600000),
  /** Throttled or temporary answers retried on the spot before the job is retried later. */
  SUBMIT_RETRY_LIMIT: envInt(5, 0, 100),
  /** First pause of a carrier after ESME_RTHROTTLED / ESME_RMSGQFUL / a temporary error, doubled each time (capped at 5 s). */
  THROTTLE_BACKOFF_MS: envInt(100, 1, 5000),
  CARRIER_HIGH_RESERVE_PERCENT: envInt(20, 0, 90),
  /**
   * The carriers' circuit breaker (shared by every replica through Redis): over the last
   * CARRIER_BREAKER_WINDOW_MS, once at least CARRIER_BREAKER_MIN_SUBMITS submits were made and
   * CARRIER_BREAKER_FAILURE_PERCENT of them failed (temporary error, throttled, no answer,
   * route-specific refusal), the carrier gets no traffic for CARRIER_BREAKER_OPEN_MS; then
   * CARRIER_BREAKER_PROBES submits test it, and all must succeed to close it.
   */
  CARRIER_BREAKER_WINDOW_MS: envInt(30_000, 1000, 3_600_000),
  CARRIER_BREAKER_MIN_SUBMITS: envInt(20, 1, 1_000_000),
  CARRIER_BREAKER_FAILURE_PERCENT: envInt(50, 1, 100),
  CARRIER_BREAKER_OPEN_MS: envInt(30_000, 100, 3_600_000),
  CARRIER_BREAKER_PROBES: envInt(5, 1, 1000),
  /** How often a replica adds its submit results to the shared record and reads the breakers. */
  CARRIER_HEALTH_SYNC_MS: envInt(500, 50, 60_000),
  // MAX_SEGMENTS and CREDITS_PER_SEGMENT of keyword auto-replies answered on transceiver binds.
  ...segmentSettings,
  /** 32 bytes in base64 (openssl rand -base64 32): opens the sealed texts of OTP messages. */
  SECRET_ENCRYPTION_KEY: encryptionKeySetting(),
  /** On SIGTERM, how long the submits on the wire get to finish before their jobs are handed back. */
  SHUTDOWN_TIMEOUT_MS: envInt(8000, 100, 120000),
});

export type DispatcherConfig = z.infer<typeof DispatcherSettings>;

export function loadDispatcherConfig(env: NodeJS.ProcessEnv = process.env): DispatcherConfig {
  return loadConfig(DispatcherSettings, env);
}
