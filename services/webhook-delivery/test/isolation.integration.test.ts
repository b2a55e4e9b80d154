import { waitFor } from "@sms/testing";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

let w: WebhookWorld;
let slow: Receiver;
let fast: Receiver;

beforeAll(async () => {
  w = await startWebhookWorld();
  slow = await startReceiver();
  fast = await startReceiver();
});
afterAll(async () => {
  await w.close();
  await Promise.all([slow.close(), fast.close()]);
});

describe("isolation: a slow endpoint never delays the others", () => {
  it("one endpoint answering after 20 s while another gets 1,000 events on time", async () => {
    const held: Array<() => void> = [];
    let open = 0;
    let mostOpen = 0;
    slow.answer = (_hook, res) => {
      mostOpen = Math.max(mostOpen, ++open);
      res.once("close", () => open--);
      const timer = setTimeout(() => res.writeHead(204).end(), 20_000);
      held.push(() => clearTimeout(timer));
    };
    const slowAccount = await w.account(slow.url);
    const fastAccount = await w.account(fast.url);
    // Real production bounds: 15 s timeout, 20 in flight per endpoint, 200 per process.
    await w.start({
      WEBHOOK_TIMEOUT_MS: "15000",
      WEBHOOK_ENDPOINT_CONCURRENCY: "20",
      WEBHOOK_CONCURRENCY: "200",
    });
    // The slow endpoint's backlog first, so it is at the head of the queue.
    await w.emitEvents(slowAccount.accountId, 300);
    await waitFor(() => slow.received.length >= 20, { what: "the slow endpoint holding its slots" });
    await w.emitEvents(fastAccount.accountId, 1000);
    // From the moment the events are on webhook.deliver (emitEvents relays them).
    const started = Date.now();
    await waitFor(() => fast.received.length >= 1000, {
      what: "1,000 events on the fast endpoint",
      timeoutMs: 120_000,
    });
    const elapsed = Date.now() - started;
    // Blocked behind the slow endpoint (280 more events, 20 at a time, 15 s timeouts)
    // they would take over three minutes; alone they take 1-2 s on a quiet machine, and
    // the bound leaves room for a CI machine running other suites beside this one.
    expect(elapsed).toBeLessThan(120_000);
    // The cap held: the slow endpoint never had more than 20 requests open at once.
    expect(mostOpen).toBe(20);
    expect(fast.ids().size).toBe(1000);
    held.forEach((cancel) => cancel());
  }, 240_000);
});
