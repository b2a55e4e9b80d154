import { waitFor } from "@sms/testing";
import { crashTestWorld, idsByEvent, launchWebhookDelivery, stopProcess } from "./crash-support";

const EVENTS = 1000;

const t = crashTestWorld();

/** webhook-delivery's high lane as npm start runs it: its own relay of the high messages' events. */
const launchLane = () =>
  launchWebhookDelivery(t.w, {
    WEBHOOK_CLASSES: "high",
    EVENT_RELAY_HIGH: "true",
    // Small claims, so the kill can land inside one.
    EVENT_RELAY_BATCH_SIZE: "25",
    EVENT_RELAY_IDLE_MS: "20",
    // A kill between a claim's commit and its enqueue leaves delivery rows that only the reconciler
    // sends (docs/webhooks.md): find them in this test's time, not after the default 5 minutes.
    // Longer than a row's hold (a batch's 10 s bound, its 2 s attempt and 5 s more).
    WEBHOOK_RECONCILE_STALE_MS: "25000",
    WEBHOOK_RECONCILE_INTERVAL_MS: "1000",
  });

/**
 * kill -9 of the high lane while its relay is still turning events into deliveries: a claim
 * in progress rolls back whole, so every event is published once (one delivery row each) and
 * sent at least once, under its own webhook-id.
 */
describe("webhook-delivery's high lane killed with SIGKILL while relaying", () => {
  it("publishes every high event once and delivers each under one id", async () => {
    const { w, r } = t;
    r.answer = (_hook, res) => setTimeout(() => res.writeHead(204).end(), 5);
    const { accountId } = await w.account(r.url);
    // Only the lane publishes them: the test runs no other relay.
    await w.emitEvents(accountId, EVENTS, { priority: "high", relay: false });
    // The second half is held (the relay skips locked rows), so the kill finds events not yet
    // published however fast the first half went.
    const holder = await w.db.pool.connect();
    await holder.query("BEGIN");
    // (Not OFFSET … FOR UPDATE: the rows an OFFSET skips are locked too.)
    await holder.query(
      "SELECT seq FROM outbox_pending WHERE seq >= (SELECT seq FROM outbox_pending ORDER BY seq OFFSET $1 LIMIT 1) FOR UPDATE",
      [EVENTS / 2],
    );
    const first = launchLane();
    try {
      await waitFor(() => r.received.length >= EVENTS / 4, {
        what: "a quarter delivered",
        timeoutMs: 30_000,
      });
      await stopProcess(first, "SIGKILL");
    } finally {
      await holder.query("COMMIT");
      holder.release();
    }
    const { rows: left } = await w.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox_pending",
    );
    expect(left[0]!.n).toBeGreaterThanOrEqual(EVENTS / 2);

    const second = launchLane();
    try {
      await waitFor(
        async () => {
          const deliveries = await w.deliveries(accountId);
          return deliveries.length === EVENTS && deliveries.every((d) => d.status === "succeeded");
        },
        { what: "every event published and its delivery succeeded", timeoutMs: 90_000, intervalMs: 250 },
      );
    } finally {
      await stopProcess(second, "SIGTERM");
    }
    const { rows: pending } = await w.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox_pending",
    );
    expect(pending[0]!.n).toBe(0);
    const ids = idsByEvent(r.received);
    expect(ids.size).toBe(EVENTS);
    expect([...ids.values()].every((each) => each.size === 1)).toBe(true);
    // Repeats are the requests in flight at the kill: at most the lane's concurrency.
    expect(r.received.length - EVENTS).toBeLessThanOrEqual(200);
  }, 150_000);
});
