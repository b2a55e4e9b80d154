import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { MESSAGE_COUNT_DELTAS_OF_ACCEPTED } from "@sms/message-state";
import { createLogger } from "@sms/logger";
import {
  DISPATCH_QUEUES,
  openQueue,
  openWorker,
  pendingDispatchJobs,
  PRIORITIES,
  type DispatchJob,
  type Job,
} from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { loadSchedulerConfig, type SchedulerConfig } from "../src/config";
import { startScheduler, type RunningScheduler } from "../src/service";

/**
 * A private database and Redis prefix, a scheduler factory, and workers that record every
 * dispatch job's messages. They complete the jobs without dispatching: the messages stay
 * queued and their claims stay held, as with a dispatcher that is still at work on them.
 */
export interface Harness {
  world: TestWorld;
  db: Database;
  accountId: string;
  /** Every message of every job the observing workers took, in order: the message id and when. */
  jobs: Array<{ messageId: string; at: number }>;
  config: SchedulerConfig;
  start(overrides?: Record<string, string>): Promise<RunningScheduler>;
  insertScheduled(scheduledAt: Date, count?: number): Promise<string[]>;
  statusOf(id: string): Promise<string>;
  jobCount(messageId: string): number;
  /** Deletes every Redis key of this test's prefix (SCAN + DEL; never FLUSHDB on the shared server). */
  flushRedisPrefix(): Promise<number>;
  jobExists(messageId: string): Promise<boolean>;
  /** True when no dispatch job is waiting, delayed or active. */
  isQueueIdle(): Promise<boolean>;
  close(): Promise<void>;
}

export async function createHarness(): Promise<Harness> {
  const world = await createTestWorld();
  const db = createDatabase(world.databaseUrl, { poolSize: 5 });
  const accountId = newId("acc");
  await db.pool.query(
    "INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'Test', 1000000, now())",
    [accountId],
  );
  const connection = createRedis(world.redisUrl, "queue");
  const context = { connection, prefix: world.redisPrefix };
  const queues = PRIORITIES.map((priority) => openQueue<DispatchJob>(context, DISPATCH_QUEUES[priority]));
  const jobs: Harness["jobs"] = [];
  const workers = PRIORITIES.map((priority) => {
    const worker = openWorker<DispatchJob>(
      context,
      DISPATCH_QUEUES[priority],
      async (job: Job<DispatchJob>) => {
        const at = Date.now();
        for (const messageId of job.data.messageIds) jobs.push({ messageId, at });
      },
      { concurrency: 50 },
    );
    // Deleting the keys under a running worker (the flush tests) makes BullMQ report lost
    // job locks as 'error' events; unheard, they would crash the test process.
    worker.on("error", () => undefined);
    return worker;
  });
  const config = loadSchedulerConfig({
    ...world.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_POOL_SIZE: "4",
    SCHEDULER_INTERVAL_MS: "100",
    RECONCILE_INTERVAL_MS: "200",
    RECONCILE_STALE_AFTER_MS: "500",
    OUTBOX_STALE_AFTER_MS: "500",
    SHUTDOWN_TIMEOUT_MS: "5000",
  });
  const logger = createLogger("scheduler-test", "warn");
  const running: RunningScheduler[] = [];
  const plain: Redis = createRedis(world.redisUrl);

  return {
    world,
    db,
    accountId,
    jobs,
    config,
    async start(overrides = {}) {
      const scheduler = await startScheduler(
        loadSchedulerConfig({ ...world.env, ...configEnv(config), ...overrides }),
        logger,
      );
      running.push(scheduler);
      return scheduler;
    },
    async insertScheduled(scheduledAt, count = 1) {
      const ids = Array.from({ length: count }, () => newId("msg"));
      // What acceptance writes for a scheduled message: the row, history sequence 1 and its count delta,
      // no outbox rows yet.
      await db.pool.query(
        `WITH m AS (
           INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                                 status, scheduled_at)
           SELECT id, $2, '+14155550100', 'ACME', 'see you at 9', 'GSM7', 1, 1, 'scheduled', $3
           FROM unnest($1::text[]) AS t(id) RETURNING id, account_id, status, created_at
         ), events_in AS (
           INSERT INTO message_events (message_id, sequence, status) SELECT id, 1, 'scheduled' FROM m
         )
         ${MESSAGE_COUNT_DELTAS_OF_ACCEPTED}`,
        [ids, accountId, scheduledAt],
      );
      return ids;
    },
    async statusOf(id) {
      const { rows } = await db.pool.query<{ status: string }>("SELECT status FROM messages WHERE id = $1", [
        id,
      ]);
      return rows[0]!.status;
    },
    jobCount: (messageId) => jobs.filter((job) => job.messageId === messageId).length,
    async flushRedisPrefix() {
      let cursor = "0";
      let deleted = 0;
      do {
        const [next, keys] = await plain.scan(cursor, "MATCH", `${world.redisPrefix}:*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) deleted += await plain.del(...keys);
      } while (cursor !== "0");
      return deleted;
    },
    async jobExists(messageId) {
      if (jobs.some((job) => job.messageId === messageId)) return true;
      const pending = await pendingDispatchJobs(context);
      return pending.some(({ job }) => job.data.messageIds.includes(messageId));
    },
    async isQueueIdle() {
      for (const queue of queues) {
        const counts = await queue.getJobCounts("waiting", "delayed", "active", "prioritized");
        if (!Object.values(counts).every((n) => n === 0)) return false;
      }
      return true;
    },
    async close() {
      for (const scheduler of running) await scheduler.stop();
      for (const worker of workers) await worker.close();
      for (const queue of queues) await queue.close();
      connection.disconnect();
      plain.disconnect();
      await db.close();
      await world.destroy();
    },
  };
}

/** The config back as environment variables, so a test can override a few. */
function configEnv(config: SchedulerConfig): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([key, value]) => [key, String(value)]));
}
