import {
  commonSettings,
  envBoolean,
  envChoices,
  envInt,
  eventRelaySettings,
  loadConfig,
  z,
} from "@sms/config";
import { WEBHOOK_WORKER_CLASSES } from "@sms/queues";
import { encryptionKeySetting } from "@sms/secret-box";
import { DEFAULT_RETRY_SCHEDULE_MS } from "./schedule";

const msList = (defaultValue: readonly number[]) =>
  z
    .string()
    .regex(/^\d+(,\d+)*$/, "comma-separated milliseconds")
    .default(defaultValue.join(","))
    .transform((value) => value.split(",").map(Number));

const WebhookDeliverySettings = z.object({
  ...commonSettings,
  /** Port of /healthz and /readyz. */
  PORT: envInt(3040, 0, 65535),
  /** Batch jobs in flight in this process per class, each to one endpoint (they mostly wait on customers' servers). */
  WEBHOOK_CONCURRENCY: envInt(200, 1, 5000),
  /**
   * The webhook classes this replica works, comma-separated: `high` (events of messages sent high,
   * OTPs) and `standard` (every other: webhook.deliver, and webhook.deliver.bulk for bulk messages'
   * events, each queue with a worker of WEBHOOK_CONCURRENCY slots). Replicas of `high` alone, beside
   * replicas of `standard`, give those events a lane of their own whose CPU another account's
   * campaign never takes (docs/fairness.md#lanes).
   */
  WEBHOOK_CLASSES: envChoices(WEBHOOK_WORKER_CLASSES),
  /**
   * Run an event relay of the high messages' events in this process, beside the scheduler's relay
   * of every event: the high lane sets it, so an OTP's event becomes a delivery at the lane's CPU
   * priority instead of behind a campaign's backlog in the scheduler (docs/fairness.md#lanes).
   */
  EVENT_RELAY_HIGH: envBoolean(false),
  ...eventRelaySettings,
  /** One batch job starts no attempt after this long and hands the rest to a new job, so a slow endpoint holds a worker slot for at most this plus one attempt. */
  WEBHOOK_BATCH_MAX_MS: envInt(10_000, 100, 600_000),
  /** Deliveries in flight to one endpoint across every replica: a slow endpoint holds at most this many slots. */
  WEBHOOK_ENDPOINT_CONCURRENCY: envInt(20, 1, 1000),
  /** A job finding its endpoint at the cap waits for a job to give slots back and wake it, or this long at most (doubling from a twentieth of it). */
  WEBHOOK_CAP_WAIT_MS: envInt(2000, 100, 600_000),
  /** One attempt's bound (docs/webhooks.md#delivery-and-retries: 15 s). */
  WEBHOOK_TIMEOUT_MS: envInt(15_000, 100, 60_000),
  /** Waits before the 2nd, 3rd, … attempt, each ±20%; its length + 1 is the number of attempts. */
  WEBHOOK_RETRY_SCHEDULE_MS: msList(DEFAULT_RETRY_SCHEDULE_MS),
  /** An endpoint failing without a success for this long is disabled (docs/webhooks.md#disabling-and-replay: 5 days). */
  WEBHOOK_DISABLE_AFTER_MS: envInt(5 * 24 * 3600 * 1000, 1000, 365 * 24 * 3600 * 1000),
  /** Loopback targets (127.0.0.0/8, ::1): only for local use and tests. */
  WEBHOOK_ALLOW_LOOPBACK: envBoolean(false),
  /** Plain http:// targets: only for local use and tests (docs/webhooks.md#the-endpoint: https elsewhere). */
  WEBHOOK_ALLOW_HTTP: envBoolean(false),
  /** A pending delivery this far past its time is queued again (its job was lost, e.g. a Redis flush). */
  WEBHOOK_RECONCILE_STALE_MS: envInt(300_000, 100, 86_400_000),
  /** Milliseconds between reconciler runs. */
  WEBHOOK_RECONCILE_INTERVAL_MS: envInt(30_000, 100, 3_600_000),
  /** Endpoint settings are re-read this often (a rotation or a new URL takes effect within it). */
  WEBHOOK_ENDPOINT_CACHE_MS: envInt(5000, 0, 600_000),
  /** BullMQ job lock; must exceed WEBHOOK_TIMEOUT_MS. A dead worker's jobs are taken over after about this long. */
  WEBHOOK_LOCK_MS: envInt(30_000, 500, 600_000),
  /** How often BullMQ looks for stalled jobs (those whose worker died). */
  WEBHOOK_STALLED_CHECK_MS: envInt(15_000, 200, 600_000),
  /** 32 bytes in base64: opens the sealed signing secrets. */
  SECRET_ENCRYPTION_KEY: encryptionKeySetting(),
  /** Bound on a graceful stop; attempts still running then are handed back (BullMQ stalls them to another worker). */
  SHUTDOWN_TIMEOUT_MS: envInt(8000, 100, 120_000),
});

export type WebhookDeliveryConfig = z.infer<typeof WebhookDeliverySettings>;

export function loadWebhookDeliveryConfig(env: NodeJS.ProcessEnv = process.env): WebhookDeliveryConfig {
  return loadConfig(
    WebhookDeliverySettings.refine((c) => c.WEBHOOK_LOCK_MS > c.WEBHOOK_TIMEOUT_MS, {
      message: "must be longer than WEBHOOK_TIMEOUT_MS, or a slow attempt looks like a dead worker",
      path: ["WEBHOOK_LOCK_MS"],
    }),
    env,
  );
}
