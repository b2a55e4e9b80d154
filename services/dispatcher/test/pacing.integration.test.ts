import { sampleValue } from "@sms/metrics";
import { insertMessage } from "@sms/message-state/test/fixtures";
import { waitForLockWaiter } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "./harness";

// An account's messages per second, counted where the carrier counts them: the second in which
// the simulator read each submit.
function perSecondAtCarrier(w: DispatchWorld): Map<number, number> {
  const perSecond = new Map<number, number>();
  for (const received of w.simulator.messages({ limit: 1000 })) {
    const second = Math.floor(Date.parse(received.receivedAt) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  return perSecond;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Starts a test in the first tenth of a second: a submit written just before its second ends
 * is read by the simulator a moment later, in the next, which is not what these tests are about. */
async function startOfASecond(): Promise<void> {
  await sleep(1000 - (Date.now() % 1000) + 5);
}

describe("an account's messages per second", () => {
  it("is honoured across the dispatcher's jobs", async () => {
    const w = await startDispatchWorld();
    try {
      await w.db.prisma.account.update({ where: { id: w.accountId }, data: { messagesPerSecond: 5 } });
      await startOfASecond();
      const messages = await Promise.all(
        Array.from({ length: 12 }, (_, i) => w.send(`+1415556${String(3000 + i)}`, `paced ${i}`)),
      );
      for (const message of messages) await w.waitForStatus(message.id, ["sent", "delivered"], 20_000);
      const perSecond = perSecondAtCarrier(w);
      expect([...perSecond.values()].reduce((a, b) => a + b, 0)).toBe(12);
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
      expect(perSecond.size).toBeGreaterThanOrEqual(3);
    } finally {
      await w.stop();
    }
  });

  it("paces again a paced job that runs after the second it was reserved in", async () => {
    const w = await startDispatchWorld();
    try {
      const accountId = await w.createAccount({ messagesPerSecond: 2 });
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push(await insertMessage(w.db.pool, { accountId }));
      // As a delayed job woken late finds itself: its share was for a second long past.
      await w.producer.enqueue(
        ids.map((messageId) => ({ messageId, accountId, priority: "normal" as const })),
        { paced: true, pacedUntil: Date.now() - 10_000 },
      );
      for (const id of ids) await w.waitForStatus(id, ["sent", "delivered"], 20_000);
      const perSecond = perSecondAtCarrier(w);
      expect([...perSecond.values()].reduce((a, b) => a + b, 0)).toBe(8);
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(2);
    } finally {
      await w.stop();
    }
  });

  it("drains at a slower carrier's rate: each message once, none lost, booked again once a second", async () => {
    const w = await startDispatchWorld({ carriers: [{ id: "sim", submitsPerSecond: 3 }] });
    try {
      // An account allowed far more than its carrier takes, the common case.
      const accountId = await w.createAccount({ messagesPerSecond: 1000 });
      const ids: string[] = [];
      for (let i = 0; i < 15; i++) ids.push(await insertMessage(w.db.pool, { accountId }));
      await startOfASecond();
      const enqueuedAt = Date.now();
      await w.producer.enqueue(
        ids.map((messageId) => ({ messageId, accountId, priority: "normal" as const })),
      );
      for (const id of ids) await w.waitForStatus(id, ["sent", "delivered"], 20_000);
      // 15 submits for 15 messages sent: each went once. Those beyond the carrier's 3 a second
      // were booked again, unwritten, without taking its room (which left 4 of 15 sent in 12 s).
      const received = w.simulator.messages({ limit: 100 });
      expect(received).toHaveLength(15);
      const times = received.map((m) => Date.parse(m.receivedAt));
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(3000); // 5 windows of 3
      // At most once a second per waiting message (30 here): booked again within the second, a
      // message found the carrier as full and came back at once (4,232 times).
      const seconds = Math.ceil((Math.max(...times) - enqueuedAt) / 1000) + 1;
      const metrics = await (await fetch(`http://127.0.0.1:${w.dispatcher.port}/metrics`)).text();
      const missed = sampleValue(metrics, "sms_dispatch_messages_total", {
        priority: "normal",
        outcome: "missed_turn",
      });
      expect(missed).toBeGreaterThan(0);
      expect(missed).toBeLessThanOrEqual(15 * seconds);
    } finally {
      await w.stop();
    }
  });

  it("books again a share whose second ends between its read and the wire", async () => {
    const w = await startDispatchWorld();
    const blocker = await w.db.pool.connect();
    try {
      const accountId = await w.createAccount({ messagesPerSecond: 5 });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await insertMessage(w.db.pool, { accountId }));
      // A slow database after the pace and the read: the submits' marks take a share lock of
      // their message, and wait for this one.
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM messages WHERE id = ANY($1) FOR UPDATE", [ids]);
      await startOfASecond();
      await w.producer.enqueue(
        ids.map((messageId) => ({ messageId, accountId, priority: "normal" as const })),
      );
      await waitForLockWaiter(w.db.pool, "dispatcher", 10_000); // the first share's marks
      // Released once the next second has begun: the first share's second is over, and the
      // second share, woken at its start, is waiting behind the lock too.
      await sleep(Math.ceil((Date.now() + 1) / 1000) * 1000 + 300 - Date.now());
      await blocker.query("COMMIT");
      for (const id of ids) await w.waitForStatus(id, ["sent", "delivered"], 20_000);
      const perSecond = perSecondAtCarrier(w);
      expect([...perSecond.values()].reduce((a, b) => a + b, 0)).toBe(10);
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
      // The late share was marked for the wire, taken back unwritten (each message reached the
      // carrier once: the ten above) and marked again once booked in a later second.
      const { rows } = await w.db.pool.query<{ attempts: number }>(
        "SELECT attempts FROM message_segments WHERE message_id = ANY($1)",
        [ids],
      );
      expect(rows.filter((r) => r.attempts === 2).length).toBeGreaterThanOrEqual(5);
      const metrics = await (await fetch(`http://127.0.0.1:${w.dispatcher.port}/metrics`)).text();
      const missed = { priority: "normal", outcome: "missed_turn" };
      expect(sampleValue(metrics, "sms_dispatch_messages_total", missed)).toBeGreaterThanOrEqual(5);
    } finally {
      await blocker.query("ROLLBACK").catch(() => undefined);
      blocker.release();
      await w.stop();
    }
  });

  it("sends a share whose second ends between its read and the wire at once when its account has room in the next", async () => {
    const w = await startDispatchWorld();
    const blocker = await w.db.pool.connect();
    try {
      // Far from its limit, as at full speed: the share's second ends only because its marks waited.
      const accountId = await w.createAccount({ messagesPerSecond: 1000 });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await insertMessage(w.db.pool, { accountId }));
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM messages WHERE id = ANY($1) FOR UPDATE", [ids]);
      await startOfASecond();
      await w.producer.enqueue(
        ids.map((messageId) => ({ messageId, accountId, priority: "normal" as const })),
      );
      await waitForLockWaiter(w.db.pool, "dispatcher", 10_000);
      await sleep(Math.ceil((Date.now() + 1) / 1000) * 1000 + 300 - Date.now());
      await blocker.query("COMMIT");
      for (const id of ids) await w.waitForStatus(id, ["sent", "delivered"], 20_000);
      expect(w.simulator.messages({ limit: 100 })).toHaveLength(10);
      // Each marked once and written in the next second, with no job booking it again.
      const { rows } = await w.db.pool.query<{ attempts: number; unanswered_submits: number }>(
        "SELECT attempts, unanswered_submits FROM message_segments WHERE message_id = ANY($1)",
        [ids],
      );
      expect(rows.map((r) => [r.attempts, r.unanswered_submits])).toEqual(ids.map(() => [1, 0]));
      const metrics = await (await fetch(`http://127.0.0.1:${w.dispatcher.port}/metrics`)).text();
      const missed = { priority: "normal", outcome: "missed_turn" };
      expect(sampleValue(metrics, "sms_dispatch_messages_total", missed) ?? 0).toBe(0);
    } finally {
      await blocker.query("ROLLBACK").catch(() => undefined);
      blocker.release();
      await w.stop();
    }
  });
});
