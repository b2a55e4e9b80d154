import { waitFor } from "@sms/testing";
import { createHarness, type Harness } from "../test/harness";
import { metricValue } from "@sms/metrics";

describe("reconciler (real PostgreSQL, Redis and BullMQ)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("re-enqueues queued messages whose jobs were lost with the Redis keys, and never duplicates a held one", async () => {
    const ids = await h.insertScheduled(new Date(Date.now() - 1000), 20);
    const scheduler = await h.start();
    await waitFor(() => ids.every((id) => h.jobCount(id) === 1), { what: "the first jobs" });
    // The messages stay queued (no dispatcher here) and go stale, but their jobs' claims still
    // hold them in Redis, so reconciler ticks past the stale age must add nothing.
    await waitFor(
      async () =>
        (
          await h.db.pool.query(
            "SELECT 1 FROM messages WHERE id = ANY($1) AND updated_at < now() - interval '1 second'",
            [ids],
          )
        ).rowCount === 20,
      { what: "the messages to go stale" },
    );
    const ticks = await metricValue(scheduler.metrics.reconcileTicks);
    await waitFor(async () => (await metricValue(scheduler.metrics.reconcileTicks)) >= ticks + 4, {
      what: "reconciler ticks over the stale messages",
    });
    expect(await metricValue(scheduler.metrics.reenqueued)).toBe(0);
    expect(h.jobs).toHaveLength(20);

    await waitFor(() => h.isQueueIdle(), { what: "the jobs to be completed" });
    expect(await h.flushRedisPrefix()).toBeGreaterThan(0);
    await waitFor(() => ids.every((id) => h.jobCount(id) === 2), { what: "the jobs again after the flush" });
    const again = await metricValue(scheduler.metrics.reconcileTicks);
    await waitFor(async () => (await metricValue(scheduler.metrics.reconcileTicks)) >= again + 3, {
      what: "more reconciler ticks",
    });
    expect(h.jobs).toHaveLength(40);
  });

  it("does not touch a queued message that is not stale yet", async () => {
    const [id] = await h.insertScheduled(new Date(Date.now() - 1000));
    const scheduler = await h.start({ RECONCILE_STALE_AFTER_MS: "600000" });
    await waitFor(() => h.jobCount(id!) === 1);
    await waitFor(() => h.isQueueIdle(), { what: "the job to be completed" });
    await h.flushRedisPrefix();
    const ticks = await metricValue(scheduler.metrics.reconcileTicks);
    await waitFor(async () => (await metricValue(scheduler.metrics.reconcileTicks)) >= ticks + 3);
    expect(await metricValue(scheduler.metrics.reenqueued)).toBe(0);
    expect(h.jobCount(id!)).toBe(1);
  });

  it("relays dispatch_outbox rows left behind by a crash between commit and hand-off", async () => {
    const [id] = await h.insertScheduled(new Date(Date.now() - 1000));
    // A promotion whose process died before the hand-off: queued, with its outbox row, no job.
    await h.db.pool.query(
      `WITH m AS (UPDATE messages SET status = 'queued', status_sequence = 2, updated_at = now() WHERE id = $1 RETURNING id)
       INSERT INTO dispatch_outbox (message_id, created_at) SELECT id, now() - interval '1 minute' FROM m`,
      [id],
    );
    const scheduler = await h.start({ RECONCILE_STALE_AFTER_MS: "600000" });
    await waitFor(() => h.jobCount(id!) === 1, { what: "the relayed job" });
    await waitFor(async () => (await h.db.pool.query("SELECT 1 FROM dispatch_outbox")).rowCount === 0);
    await waitFor(async () => (await metricValue(scheduler.metrics.outboxRelayed)) === 1, {
      what: "the relay counted in the metrics",
    });
  });

  it("pages through a backlog of stale messages in bounded ticks", async () => {
    const ids = await h.insertScheduled(new Date(Date.now() - 1000), 250);
    await h.db.pool.query(
      "UPDATE messages SET status = 'queued', status_sequence = 2, updated_at = now() - interval '1 hour' WHERE id = ANY($1)",
      [ids],
    );
    const scheduler = await h.start({ RECONCILE_BATCH_SIZE: "40", RECONCILE_MAX_PER_TICK: "100" });
    await waitFor(() => ids.every((id) => h.jobCount(id) === 1), { what: "a job for each of the 250" });
    expect(await metricValue(scheduler.metrics.reconcileTicks)).toBeGreaterThanOrEqual(3);
    expect(h.jobs).toHaveLength(250);
  });
});
