import { waitFor } from "@sms/testing";
import { crashTestWorld, launchWebhookDelivery, stopProcess } from "./crash-support";

const EVENTS = 300;
const CAP = 5;

const t = crashTestWorld();

const launch = () =>
  launchWebhookDelivery(t.w, {
    WEBHOOK_ENDPOINT_CONCURRENCY: String(CAP),
    // The reconciler stays out of it: only the stalled job's own claim can bring the rest back.
    WEBHOOK_RECONCILE_STALE_MS: "3600000",
  });

/**
 * kill -9 of a webhook-delivery process halfway through one batch job (300 events of one
 * account, 5 at a time). BullMQ hands the job to the next process as stalled; the job's
 * claim takes back the rows not yet recorded. The recorded part is not sent again, the
 * rest is sent once, and only the requests in flight (sent, not yet recorded) repeat.
 */
describe("webhook-delivery killed with SIGKILL halfway through a batch", () => {
  it("sends the rest of the batch once and the done part not again", async () => {
    const { w, r } = t;
    r.answer = (_hook, res) => setTimeout(() => res.writeHead(204).end(), 20);
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, EVENTS);
    const first = launch();
    await waitFor(() => r.received.length >= EVENTS / 4, { what: "a quarter delivered", timeoutMs: 30_000 });
    await stopProcess(first, "SIGKILL");
    const sentBeforeKill = new Set(r.received.map((hook) => hook.id));
    const receivedAtKill = r.received.length;
    const doneAtKill = new Set(
      (await w.deliveries(accountId)).filter((d) => d.status === "succeeded").map((d) => d.event_id),
    );
    expect(sentBeforeKill.size).toBeLessThan(EVENTS);
    expect(doneAtKill.size).toBeGreaterThan(0);

    const second = launch();
    try {
      await waitFor(async () => (await w.deliveries(accountId)).every((d) => d.status === "succeeded"), {
        what: "every delivery succeeded after the takeover",
        timeoutMs: 60_000,
        intervalMs: 250,
      });
    } finally {
      await stopProcess(second, "SIGTERM");
    }
    const afterKill = r.received.slice(receivedAtKill).map((hook) => hook.id);
    // The done part: not again.
    expect(afterKill.filter((id) => doneAtKill.has(id))).toEqual([]);
    // The rest: every event not sent before the kill, exactly once.
    const counts = new Map<string, number>();
    for (const id of afterKill) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(r.ids().size).toBe(EVENTS);
    // Repeats: only what was sent and not yet recorded at the kill, at most the slots plus a flush.
    const repeats = afterKill.filter((id) => sentBeforeKill.has(id));
    expect(repeats.length).toBeLessThanOrEqual(sentBeforeKill.size - doneAtKill.size);
    expect(repeats.length).toBeLessThanOrEqual(CAP * 4);
  }, 120_000);
});
