import { terminate, waitFor, type ServiceProcess, launchService, expectCleanStop } from "@sms/testing";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

const EVENTS = 1000;

let w: WebhookWorld;
let r: Receiver;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  w = await startWebhookWorld();
  r = await startReceiver();
}, 60_000);
afterAll(async () => {
  for (const service of processes) service.kill();
  await w?.close();
  await r?.close();
});

async function launch(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; port: number }> {
  // The default 30 s job lock: a short one can lapse on a starved CPU while its POST still runs.
  return launchService("webhook-delivery", { ...w.env, WEBHOOK_TIMEOUT_MS: "2000", ...env }, processes);
}

/**
 * SIGTERM to a webhook-delivery process while events flow: it stops taking jobs, lets the
 * POSTs on the wire finish, and exits 0 within 10 s; a fresh process delivers the rest.
 * Webhooks are at-least-once by design, but a graceful stop must not need that: "run twice
 * to completion" here is an event with two successful attempts recorded, or POSTed twice.
 */
describe("webhook-delivery sent SIGTERM under load", () => {
  it("exits 0 within 10 s, unready first; a fresh process delivers every event; none has two successful attempts or two POSTs", async () => {
    // A receiver a little slow, so the SIGTERM lands with requests in flight.
    r.answer = (_hook, res) => setTimeout(() => res.writeHead(204).end(), 30);
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, EVENTS);
    const first = await launch();
    await waitFor(() => r.received.length >= EVENTS / 5, { what: "a fifth delivered", timeoutMs: 30_000 });
    const stopped = await terminate(first.service, first.port);
    expectCleanStop(stopped, first.service);
    const atStop = r.received.length;
    expect(atStop).toBeLessThan(EVENTS);

    const second = await launch();
    await waitFor(async () => (await w.deliveries(accountId)).every((d) => d.status === "succeeded"), {
      what: "every delivery succeeded after the restart",
      timeoutMs: 45_000,
      intervalMs: 250,
    });
    // Idle now: stopped, so the next test's jobs go only to its own processes.
    expect((await terminate(second.service, second.port)).code).toBe(0);
    expect(r.ids().size).toBe(EVENTS);
    expect(r.received).toHaveLength(EVENTS);
    // Exactly one success recorded per event: on its delivery, and no second one as an attempt row.
    const rows = await w.successesPerEvent(accountId);
    expect(rows).toHaveLength(EVENTS);
    expect(rows.filter((row) => row.successes !== 1)).toEqual([]);
    console.log(
      `webhook-delivery: SIGTERM at ${atStop}/${EVENTS} delivered, exited in ${stopped.elapsedMs} ms`,
    );
  }, 120_000);
});

/**
 * Endpoints that take 12 s to answer (within the 15 s attempt bound) and SHUTDOWN_TIMEOUT_MS of
 * 1 s: the stop does not wait for them. The attempts are handed back (their POSTs may arrive
 * again, under the same webhook-id: at-least-once), and each event still gets one successful
 * attempt on record.
 */
describe("webhook-delivery sent SIGTERM while endpoints hang", () => {
  it("exits 0 at its shutdown bound; a fresh process delivers every event; none has two successful attempts", async () => {
    const events = 10;
    let slow = true;
    r.answer = (_hook, res) => setTimeout(() => res.writeHead(204).end(), slow ? 12_000 : 0).unref();
    const { accountId } = await w.account(r.url);
    const received = r.received.length;
    await w.emitEvents(accountId, events);
    // A lock just over the attempt bound, so the handed-back jobs are taken over soon.
    const env = {
      WEBHOOK_TIMEOUT_MS: "15000",
      WEBHOOK_LOCK_MS: "16000",
      WEBHOOK_STALLED_CHECK_MS: "1000",
      SHUTDOWN_TIMEOUT_MS: "1000",
    };
    const first = await launch(env);
    await waitFor(() => r.received.length - received === events, {
      what: "every POST open",
      timeoutMs: 30_000,
    });
    const stopped = await terminate(first.service, first.port);
    expect({ code: stopped.code, signal: stopped.signal }).toEqual({ code: 0, signal: null });
    expect(stopped.elapsedMs).toBeLessThan(10_000);
    expect(stopped.wentUnready).toBe(true);

    slow = false;
    await launch(env);
    await waitFor(async () => (await w.deliveries(accountId)).every((d) => d.status === "succeeded"), {
      what: "every delivery succeeded after the takeover",
      timeoutMs: 45_000,
      intervalMs: 250,
    });
    // Exactly one success recorded per event: on its delivery, and no second one as an attempt row.
    const rows = await w.successesPerEvent(accountId);
    expect(rows).toHaveLength(events);
    expect(rows.filter((row) => row.successes !== 1)).toEqual([]);
    console.log(`webhook-delivery, hanging endpoints: exited in ${stopped.elapsedMs} ms`);
  }, 120_000);
});
