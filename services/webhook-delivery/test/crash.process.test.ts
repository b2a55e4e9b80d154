import { waitFor } from "@sms/testing";
import { crashTestWorld, idsByEvent, launchWebhookDelivery, stopProcess } from "./crash-support";

const EVENTS = 2000;

const t = crashTestWorld();

const launch = () => launchWebhookDelivery(t.w);

/**
 * kill -9 of a webhook-delivery process in the middle of 2,000 events: at-least-once.
 * Every event arrives, each always under its own webhook-id; the only repeats are the
 * requests that were in flight at the kill, and the test bounds them.
 */
describe("webhook-delivery killed with SIGKILL mid-run", () => {
  it("delivers every event, under the same id on every repeat", async () => {
    const { w, r } = t;
    // A receiver a little slow, so the kill lands with requests in flight.
    r.answer = (_hook, res) => setTimeout(() => res.writeHead(204).end(), 5);
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, EVENTS);
    const first = launch();
    await waitFor(() => r.received.length >= EVENTS / 4, { what: "a quarter delivered", timeoutMs: 30_000 });
    await stopProcess(first, "SIGKILL");
    const atKill = r.received.length;
    expect(atKill).toBeLessThan(EVENTS);

    const second = launch();
    try {
      await waitFor(async () => (await w.deliveries(accountId)).every((d) => d.status === "succeeded"), {
        what: "every delivery succeeded after the restart",
        timeoutMs: 90_000,
        intervalMs: 250,
      });
    } finally {
      await stopProcess(second, "SIGTERM");
    }
    const ids = idsByEvent(r.received);
    expect(ids.size).toBe(EVENTS);
    expect([...ids.values()].every((each) => each.size === 1)).toBe(true);
    const repeats = r.received.length - EVENTS;
    // In flight at the kill: at most the process's concurrency (200) were open.
    expect(repeats).toBeLessThanOrEqual(200);
  }, 150_000);
});
