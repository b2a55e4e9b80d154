import type { PreparedMessage } from "@sms/message-acceptance";
import type { Priority } from "@sms/queues";
import { waitFor } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "./harness";

// Priority and fairness (docs/fairness.md) with the real dispatcher, simulator, PostgreSQL and Redis.

/** `count` numbers from `base`; a base ending in 1000 keeps them clear of the simulator's magic suffixes (0001–0010). */
const numbers = (base: number, count: number) =>
  Array.from({ length: count }, (_, i) => `+1415${String(base + i).padStart(7, "0")}`);

async function sendBatch(
  w: DispatchWorld,
  accountId: string,
  to: string[],
  priority?: Priority,
): Promise<string[]> {
  const result = await w.acceptance.acceptor.acceptBulk(
    { id: accountId, senderIds: new Set(["ACME"]) },
    {
      senderId: "ACME",
      items: to.map((number, i) => ({ to: number, message: `fairness ${i}` })),
      maxItems: 10_000,
      priority,
    },
  );
  return result.accepted.map((item) => item.message_id);
}

async function sendOne(
  w: DispatchWorld,
  accountId: string,
  to: string,
  priority: Priority,
): Promise<PreparedMessage> {
  return w.acceptance.acceptor.acceptOne(
    { id: accountId, senderIds: new Set(["ACME"]) },
    { to, message: "your code is 123456", senderId: "ACME", priority },
  );
}

/** Segments submitted so far, in submit order. */
async function submitOrder(w: DispatchWorld): Promise<string[]> {
  const { rows } = await w.db.pool.query<{ message_id: string }>(
    "SELECT message_id FROM message_segments WHERE submitted_at IS NOT NULL ORDER BY submitted_at, message_id",
  );
  return rows.map((row) => row.message_id);
}

const sentCount = async (w: DispatchWorld, ids: string[]) =>
  Number(
    (
      await w.db.pool.query(
        "SELECT count(*) AS n FROM messages WHERE id = ANY($1) AND status IN ('sent', 'delivered')",
        [ids],
      )
    ).rows[0].n,
  );

describe("a throttled account waits outside the workers", () => {
  let w: DispatchWorld;
  beforeAll(async () => {
    // One slot per class: a throttled job that held its slot would stop every other account's.
    w = await startDispatchWorld({
      env: {
        DISPATCH_CONCURRENCY_HIGH: "1",
        DISPATCH_CONCURRENCY_NORMAL: "1",
        DISPATCH_CONCURRENCY_BULK: "1",
      },
    });
  });
  afterAll(() => w.stop());

  it("drains its campaign at its messages/s while another account's batch in the same class goes at once", async () => {
    const slow = await w.createAccount({ messagesPerSecond: 20 });
    const campaign = await sendBatch(w, slow, numbers(2_001_000, 200));
    const started = Date.now();
    // Another account's bulk, behind the campaign in the same queue, with the only bulk slot.
    const other = await sendBatch(w, w.accountId, numbers(3_001_000, 50));
    await waitFor(async () => (await sentCount(w, other)) === 50, {
      timeoutMs: 3000,
      what: "the other account's 50 messages sent while the campaign is throttled",
    });
    const elapsedS = (Date.now() - started) / 1000;
    // 20 per UTC second: the rest of the second its first job ran in, then 20 at each second's
    // start. Started just before a boundary, two seconds' worth may be out within milliseconds.
    expect(await sentCount(w, campaign)).toBeLessThanOrEqual(20 * (elapsedS + 2));
    expect(await sentCount(w, campaign)).toBeLessThan(200);

    // And the campaign still drains, at its pace: 20 in what is left of the first second, then 20
    // per second, the last ones 9 seconds later: more than 8 s however late in a second it began.
    await waitFor(async () => (await sentCount(w, campaign)) === 200, {
      timeoutMs: 20_000,
      what: "the whole campaign sent",
    });
    const drainS = (Date.now() - started) / 1000;
    expect(drainS).toBeGreaterThan(8);
  }, 40_000);
});

describe("classes are weighted on a carrier's window", () => {
  let w: DispatchWorld;
  beforeAll(async () => {
    // One bind with a window of one and 5 ms per answer: submits queue on the window, as on a busy carrier.
    w = await startDispatchWorld({
      carriers: [{ id: "sim", windowSize: 1, transmitterBinds: 1 }],
      simulatorSettings: { settings: { receiptDelayMs: 20, submitLatencyMs: 5 } },
    });
  });
  afterAll(() => w.stop());

  it("lets a high message overtake a bulk campaign's queued submits", async () => {
    const campaign = await sendBatch(w, w.accountId, numbers(4_001_000, 300));
    await waitFor(async () => (await submitOrder(w)).length >= 20, { what: "the campaign under way" });
    const otp = await sendOne(w, w.accountId, "+14155009999", "high");
    await w.waitForStatus(otp.id, ["sent", "delivered"], 10_000);
    const order = await submitOrder(w);
    const before = order.indexOf(otp.id);
    // Without classes it would wait behind every bulk submit already queued on the window (all 300).
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(150);
    await waitFor(async () => (await sentCount(w, campaign)) === 300, {
      timeoutMs: 20_000,
      what: "the campaign finished",
    });
  }, 40_000);

  it("never starves bulk while high traffic keeps the window full", async () => {
    const bulk = await sendBatch(w, w.accountId, numbers(5_001_000, 100), "bulk");
    const high = await sendBatch(w, w.accountId, numbers(6_001_000, 300), "high");
    await waitFor(async () => (await sentCount(w, high)) === 300, {
      timeoutMs: 20_000,
      what: "the high messages sent",
    });
    const order = await submitOrder(w);
    const ofRound = new Set([...bulk, ...high]);
    const firstTwoHundred = order.filter((id) => ofRound.has(id)).slice(0, 200);
    const bulkShare = firstTwoHundred.filter((id) => bulk.includes(id)).length;
    // Weighted 6 : 1 against high, bulk gets about one submit in seven while both wait.
    expect(bulkShare).toBeGreaterThanOrEqual(10);
    expect(bulkShare).toBeLessThan(100);
  }, 40_000);
});

describe("a carrier that one account's campaign keeps full", () => {
  let w: DispatchWorld;
  beforeAll(async () => {
    w = await startDispatchWorld({ carriers: [{ id: "sim", submitsPerSecond: 20 }] });
  });
  afterAll(() => w.stop());

  it("still takes another account's OTPs in the next second, and the campaign drains", async () => {
    const campaigner = await w.createAccount({ messagesPerSecond: 1000 });
    const other = await w.createAccount({ messagesPerSecond: 1000 });
    const campaign = await sendBatch(w, campaigner, numbers(7_001_000, 300));
    await waitFor(async () => (await submitOrder(w)).length >= 40, { what: "the carrier full" });
    const sentAt = Date.now();
    const otps = await Promise.all(
      ["+14155008881", "+14155008882", "+14155008883"].map((to) => sendOne(w, other, to, "high")),
    );
    const took: number[] = [];
    for (const otp of otps) {
      await w.waitForStatus(otp.id, ["sent", "delivered"], 20_000);
      took.push(Date.now() - sentAt);
    }
    // Denied in the full second, each is booked into the next, where normal and bulk leave high
    // a share (about 1 s here). When the room went to whichever submit asked first, the slowest
    // of the three took 3–5 s (CARRIER_HIGH_RESERVE_PERCENT=0), and five took 8–11 s.
    expect(Math.max(...took)).toBeLessThan(2_500);
    await waitFor(async () => (await sentCount(w, campaign)) === 300, {
      timeoutMs: 30_000,
      what: "the campaign finished",
    });
  }, 60_000);
});
