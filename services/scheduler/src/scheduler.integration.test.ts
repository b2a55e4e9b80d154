import { freePort, waitFor } from "@sms/testing";
import { createHarness, type Harness } from "../test/harness";
import { metricValue } from "@sms/metrics";

describe("scheduler (real PostgreSQL, Redis and BullMQ)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  async function queuedAt(id: string): Promise<{ scheduledAt: Date; queuedAt: Date }> {
    const { rows } = await h.db.pool.query(
      `SELECT m.scheduled_at, e.occurred_at FROM messages m
       JOIN message_events e ON e.message_id = m.id AND e.status = 'queued' WHERE m.id = $1`,
      [id],
    );
    return { scheduledAt: rows[0].scheduled_at, queuedAt: rows[0].occurred_at };
  }

  it("queues a message within 1 s of its time and puts its job on sms.dispatch", async () => {
    const [id] = await h.insertScheduled(new Date(Date.now() + 1500));
    await h.start({ SCHEDULER_INTERVAL_MS: "200" }); // the default
    await waitFor(async () => (await h.statusOf(id!)) === "queued", { what: "the message to be queued" });
    const { scheduledAt, queuedAt: at } = await queuedAt(id!);
    expect(at.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
    expect(at.getTime() - scheduledAt.getTime()).toBeLessThan(1000);
    await waitFor(() => h.jobCount(id!) === 1, { what: "its sms.dispatch job" });
    expect(h.jobs.find((j) => j.messageId === id)!.at - scheduledAt.getTime()).toBeLessThan(1000);
    const { rows } = await h.db.pool.query(
      `SELECT (SELECT count(*) FROM events WHERE message_id = $1 AND type = 'message.queued')::int AS events,
              (SELECT count(*) FROM dispatch_outbox WHERE message_id = $1)::int AS outbox`,
      [id],
    );
    // One message.queued event; the dispatch_outbox row is gone once the job is in Redis.
    await waitFor(async () => {
      const { rows: left } = await h.db.pool.query("SELECT 1 FROM dispatch_outbox WHERE message_id = $1", [
        id,
      ]);
      return left.length === 0;
    });
    expect(rows[0].events).toBe(1);
  });

  it("never promotes a message canceled before its time", async () => {
    const at = Date.now() + 800;
    const [canceled] = await h.insertScheduled(new Date(at));
    const [sentinel] = await h.insertScheduled(new Date(at + 100));
    await h.start();
    // The gateway's cancel: only a row still 'scheduled' changes.
    const { rowCount } = await h.db.pool.query(
      `UPDATE messages SET status = 'canceled', canceled_at = now(), updated_at = now(), status_sequence = status_sequence + 1
       WHERE id = $1 AND account_id = $2 AND status = 'scheduled'`,
      [canceled, h.accountId],
    );
    expect(rowCount).toBe(1);
    // The sentinel is due later than the canceled one: once its job ran, the canceled one's time has passed too.
    await waitFor(() => h.jobCount(sentinel!) === 1, { what: "the sentinel's job" });
    expect(await h.statusOf(canceled!)).toBe("canceled");
    expect(h.jobCount(canceled!)).toBe(0);
    expect(await h.jobExists(canceled!)).toBe(false);
    const { rows } = await h.db.pool.query(
      "SELECT count(*)::int AS n FROM message_events WHERE message_id = $1 AND status = 'queued'",
      [canceled],
    );
    expect(rows[0].n).toBe(0);
  });

  it("promotes a message that came due while no scheduler was running, once one starts again", async () => {
    const first = await h.start();
    const dueAt = Date.now() + 400;
    const [id] = await h.insertScheduled(new Date(dueAt));
    await first.stop();
    await waitFor(() => Date.now() > dueAt + 300, { what: "the schedule to pass" });
    expect(await h.statusOf(id!)).toBe("scheduled");
    await h.start();
    await waitFor(() => h.jobCount(id!) === 1, { what: "its job after the restart" });
    expect(await h.statusOf(id!)).toBe("queued");
  });

  it("promotes each message exactly once when two schedulers run at once", async () => {
    const total = 600;
    const ids = [
      ...(await h.insertScheduled(new Date(Date.now() - 1000), total / 2)),
      ...(await h.insertScheduled(new Date(Date.now() + 300), total / 2)),
    ];
    const [a, b] = await Promise.all([
      h.start({ SCHEDULER_BATCH_SIZE: "25" }),
      h.start({ SCHEDULER_BATCH_SIZE: "25" }),
    ]);
    await waitFor(() => h.jobs.length >= total, { what: `${total} jobs`, timeoutMs: 20_000 });
    // Both did part of the work, and the reconcilers ran a few times over the completed jobs.
    expect(await metricValue(a.metrics.promoted)).toBeGreaterThan(0);
    expect(await metricValue(b.metrics.promoted)).toBeGreaterThan(0);
    expect((await metricValue(a.metrics.promoted)) + (await metricValue(b.metrics.promoted))).toBe(total);
    const ticks =
      (await metricValue(a.metrics.reconcileTicks)) + (await metricValue(b.metrics.reconcileTicks));
    await waitFor(
      async () =>
        (await metricValue(a.metrics.reconcileTicks)) + (await metricValue(b.metrics.reconcileTicks)) >=
        ticks + 4,
      {
        what: "more reconciler ticks",
      },
    );
    expect(h.jobs).toHaveLength(total);
    expect(new Set(h.jobs.map((j) => j.messageId))).toEqual(new Set(ids));
    const { rows } = await h.db.pool.query(
      `SELECT (SELECT count(*) FROM message_events WHERE status = 'queued')::int AS events,
              (SELECT count(DISTINCT message_id) FROM message_events WHERE status = 'queued')::int AS messages,
              (SELECT count(*) FROM events WHERE type = 'message.queued')::int AS outbox,
              (SELECT count(*) FROM messages WHERE status = 'queued' AND status_sequence = 2)::int AS queued`,
    );
    expect(rows[0]).toEqual({ events: total, messages: total, outbox: total, queued: total });
  });

  it("stops within its bound in the middle of a backlog and loses no promoted message", async () => {
    await h.insertScheduled(new Date(Date.now() - 1000), 5000);
    const scheduler = await h.start({ SCHEDULER_BATCH_SIZE: "100" });
    await waitFor(async () => (await metricValue(scheduler.metrics.promoted)) > 0, {
      what: "promotion to start",
    });
    const started = Date.now();
    await scheduler.stop();
    expect(Date.now() - started).toBeLessThan(5000);
    // Every queued message has its job in Redis or its row in dispatch_outbox (for the relay).
    const { rows } = await h.db.pool.query<{ id: string; in_outbox: boolean }>(
      `SELECT m.id, EXISTS (SELECT 1 FROM dispatch_outbox d WHERE d.message_id = m.id) AS in_outbox
       FROM messages m WHERE m.status = 'queued'`,
    );
    expect(rows.length).toBe(await metricValue(scheduler.metrics.promoted));
    for (const row of rows) if (!row.in_outbox) expect(await h.jobExists(row.id)).toBe(true);
  });

  it("keeps queueing due messages while Redis is unreachable, and still stops within its bound", async () => {
    const ids = await h.insertScheduled(new Date(Date.now() - 1000), 3);
    const scheduler = await h.start({
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      HANDOFF_TIMEOUT_MS: "300",
      SHUTDOWN_TIMEOUT_MS: "1500",
    });
    await waitFor(
      async () => {
        const { rows } = await h.db.pool.query(
          "SELECT count(*)::int AS n FROM dispatch_outbox WHERE message_id = ANY($1)",
          [ids],
        );
        return rows[0].n === 3;
      },
      { what: "the promoted messages to wait in dispatch_outbox" },
    );
    for (const id of ids) expect(await h.statusOf(id)).toBe("queued");
    const ready = await fetch(`http://127.0.0.1:${scheduler.port}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).checks.postgres).toBe("ok");
    const started = Date.now();
    await scheduler.stop();
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("answers /healthz, /readyz and /metrics on its port", async () => {
    const scheduler = await h.start();
    const base = `http://127.0.0.1:${scheduler.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { postgres: "ok", redis: "ok" } });
    await waitFor(async () => (await metricValue(scheduler.metrics.promoteTicks)) > 0);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^sms_scheduler_promoted_messages_total 0$/m);
    expect(metrics).toMatch(/^sms_scheduler_ticks_total [1-9]\d*$/m);
  });
});
