import { commonSettings, envInt, eventRelaySettings, loadConfig, z } from "@sms/config";

const SchedulerSettings = z.object({
  ...commonSettings,
  /** Port of /healthz, /readyz and /metrics. */
  PORT: envInt(3010, 0, 65535),
  /** Address the health/metrics port listens on. */
  HOST: z.string().default("0.0.0.0"),
  /** Milliseconds between promotion ticks; a due message is queued within about this long (docs/messages.md#scheduling). */
  SCHEDULER_INTERVAL_MS: envInt(200, 10, 60_000),
  /** Messages promoted per transaction; a tick repeats until fewer than this are due. */
  SCHEDULER_BATCH_SIZE: envInt(1000, 1, 10_000),
  /** Milliseconds between reconciler ticks (outbox relay + re-enqueue of stale queued messages). */
  RECONCILE_INTERVAL_MS: envInt(10_000, 100, 3_600_000),
  /** A queued message untouched for this long is re-enqueued (a no-op while its job exists). */
  RECONCILE_STALE_AFTER_MS: envInt(30_000, 100, 86_400_000),
  /** Stale queued messages read and re-enqueued per page. */
  RECONCILE_BATCH_SIZE: envInt(1000, 1, 10_000),
  /** Most stale queued messages re-enqueued per tick; the next tick continues where this one stopped. */
  RECONCILE_MAX_PER_TICK: envInt(10_000, 1, 1_000_000),
  /** Milliseconds between passes of the validity and receipt-timeout sweeps (docs/messages.md#validity); a message fails within about this long after its time. */
  EXPIRY_INTERVAL_MS: envInt(1000, 50, 3_600_000),
  /** Messages failed per transaction by each sweep; a tick repeats while a batch comes back full. */
  EXPIRY_BATCH_SIZE: envInt(1000, 1, 10_000),
  /** Most messages each sweep fails per tick; the next tick continues. */
  EXPIRY_MAX_PER_TICK: envInt(20_000, 1, 1_000_000),
  /** Seconds after its validity ends that a sent message without final receipts fails RECEIPT_TIMEOUT (1 h: docs/messages.md#validity). */
  RECEIPT_TIMEOUT_GRACE_SECONDS: envInt(3600, 0, 30 * 86_400),
  /** Age in ms after which a dispatch_outbox row is re-enqueued by the relay. */
  OUTBOX_STALE_AFTER_MS: envInt(10_000, 100, 3_600_000),
  /** Milliseconds a hand-off to Redis may take before a tick gives up and leaves it to the relay. */
  HANDOFF_TIMEOUT_MS: envInt(2000, 100, 60_000),
  ...eventRelaySettings,
  /** Milliseconds between retention passes (docs/operations.md#retention); one replica runs each pass. */
  RETENTION_INTERVAL_MS: envInt(60_000, 100, 86_400_000),
  /** Rows a retention pass deletes per statement, each its own short transaction. */
  RETENTION_BATCH_SIZE: envInt(1000, 1, 10_000),
  /** Most rows a retention pass deletes per table; the next pass continues. */
  RETENTION_MAX_PER_TABLE: envInt(200_000, 1, 100_000_000),
  /** Days final messages are kept, with their history, segments, OTP, SMPP submit records; inbound messages too. 0: for ever. */
  RETENTION_MESSAGES_DAYS: envInt(90, 0, 36_500),
  /** Days webhook deliveries (once no longer pending) and their attempts are kept. 0: for ever. */
  RETENTION_WEBHOOKS_DAYS: envInt(30, 0, 36_500),
  /** Days published outbox events, SMPP receipts and inbound messages no bind took, and inbound parts are kept. 0: for ever. */
  RETENTION_OUTBOX_DAYS: envInt(7, 0, 36_500),
  /** Days carrier delivery receipts are kept. 0: for ever. */
  RETENTION_RECEIPTS_DAYS: envInt(30, 0, 36_500),
  /** Days dashboard sign-in attempts are kept. 0: for ever. */
  RETENTION_SIGN_INS_DAYS: envInt(30, 0, 36_500),
  /** Days OTPs are kept once verified, failed or expired. 0: for ever. */
  RETENTION_OTPS_DAYS: envInt(30, 0, 36_500),
  /** Days credit ledger entries are kept (money: about 13 months). 0: for ever. */
  RETENTION_LEDGER_DAYS: envInt(400, 0, 36_500),
  /** Milliseconds between folds of status-change deltas into the per-account message counts (docs/decisions.md#message-counts); readers add the unfolded ones, so this bounds that table, not staleness. */
  MESSAGE_COUNTS_INTERVAL_MS: envInt(1000, 50, 3_600_000),
  /** Deltas folded per transaction; a tick repeats while a batch comes back full. */
  MESSAGE_COUNTS_BATCH_SIZE: envInt(10_000, 1, 100_000),
  /** Bound on a graceful stop: the current ticks and the last hand-offs get this long. */
  SHUTDOWN_TIMEOUT_MS: envInt(10_000, 100, 120_000),
});

export type SchedulerConfig = z.infer<typeof SchedulerSettings>;

export function loadSchedulerConfig(env: NodeJS.ProcessEnv = process.env): SchedulerConfig {
  return loadConfig(SchedulerSettings, env);
}
