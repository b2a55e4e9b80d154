import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { Batcher } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { createCarrierBudget } from "@sms/rate-limit";
import { createRedis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { CommandStatus } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import type { CarrierHealth } from "../src/carrier-health";
import { dispatchMessage, type DispatchContext } from "../src/dispatch.processor";
import { loadMessages, markSubmitting, recordSubmitted } from "../src/segments.sql";
import { startDispatchWorld, type DispatchWorld } from "./harness";

// Over real SMPP: a primary carrier (the harness's simulator) and a backup
// route to a second simulator instance, with the dispatcher's breaker tuned for seconds.
const BREAKER = {
  CARRIER_BREAKER_WINDOW_MS: "10000",
  CARRIER_BREAKER_MIN_SUBMITS: "5",
  CARRIER_BREAKER_FAILURE_PERCENT: "50",
  CARRIER_HEALTH_SYNC_MS: "100",
  DISPATCH_RETRY_BASE_MS: "200",
  SUBMIT_RETRY_LIMIT: "1",
};

async function startWithBackup(
  env: Record<string, string>,
): Promise<{ w: DispatchWorld; backup: CarrierSimulator }> {
  // The backup honours no magic numbers: …0004 is refused by the primary only.
  const backup = await createCarrierSimulator({ settings: { receiptDelayMs: 20, magicNumbers: false } });
  const w = await startDispatchWorld({
    carriers: [
      { id: "primary", priority: 0 },
      { id: "backup", port: backup.smppPort, priority: 1 },
    ],
    env: { ...BREAKER, ...env },
  });
  await waitFor(() => (w.dispatcher.carriers.status().backup?.bound ?? 0) > 0, { what: "backup binds" });
  return { w, backup };
}

const numbers = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `+1415557${String(from + i).padStart(4, "0")}`);

/** What each simulator accepted for a destination (a segment "on" that carrier). */
const acceptedBy = (simulator: CarrierSimulator, to: string) =>
  simulator.messages({ to }).filter((m) => m.status !== "refused" && m.status !== "unanswered");

describe("failover and carrier health", () => {
  let w: DispatchWorld;
  let backup: CarrierSimulator;
  afterEach(async () => {
    await w?.stop();
    await backup?.close();
  });

  it("sends an ESME_RSUBMITFAIL to the next route; a carrier answering ESME_RSYSERR to all is opened within seconds and its traffic flows via the backup, no segment on both", async () => {
    ({ w, backup } = await startWithBackup({ CARRIER_BREAKER_OPEN_MS: "60000" }));
    const refused = await w.send("+14155550004", "refused by the primary only");
    await w.waitForStatus(refused.id, ["sent", "delivered"]);
    expect(w.simulator.messages({ to: "+14155550004" })).toEqual([
      expect.objectContaining({ submitStatus: CommandStatus.ESME_RSUBMITFAIL }),
    ]);
    expect(acceptedBy(backup, "+14155550004")).toHaveLength(1);
    expect(w.dispatcher.health.state("primary")).toBe("closed");

    w.simulator.update({ refuseSubmitsWith: CommandStatus.ESME_RSYSERR });
    const troubleAt = Date.now();
    const before = await Promise.all(numbers(0, 10).map((to) => w.send(to, `during trouble ${to}`)));
    await waitFor(() => w.dispatcher.health.state("primary") === "open", { what: "the breaker to open" });
    const openedAfterMs = Date.now() - troubleAt;
    expect(openedAfterMs).toBeLessThan(5000);
    const primarySubmitsWhenOpen = w.simulator.stats().submits.received;

    const after = await Promise.all(numbers(100, 20).map((to) => w.send(to, `while open ${to}`)));
    for (const message of [...before, ...after]) await w.waitForStatus(message.id, ["sent", "delivered"]);
    // Open: nothing more went to the primary (a submit already past the check may have gone).
    expect(w.simulator.stats().submits.received - primarySubmitsWhenOpen).toBeLessThanOrEqual(2);
    for (const to of [...numbers(0, 10), ...numbers(100, 20)]) {
      expect(acceptedBy(w.simulator, to)).toHaveLength(0);
      expect(acceptedBy(backup, to)).toHaveLength(1);
    }
    const segments = await w.db.prisma.messageSegment.findMany({
      where: { messageId: { in: [...before, ...after].map((m) => m.id) } },
    });
    expect(new Set(segments.map((s) => s.carrierId))).toEqual(new Set(["backup"]));
    const metrics = await (await fetch(`http://127.0.0.1:${w.dispatcher.port}/metrics`)).text();
    expect(metrics).toMatch(/sms_carrier_breaker_state\{carrier_id="primary",state="open"\} 1/);
    expect(metrics).toMatch(/sms_carrier_submits_total\{carrier_id="primary",result="failed"\} \d+/);
    console.log(`breaker opened ${openedAfterMs} ms after the primary began answering ESME_RSYSERR`);
  }, 60_000);

  it("never sends a segment whose fate is unknown to the backup: it waits for its own carrier, which takes it again once its probes pass", async () => {
    ({ w, backup } = await startWithBackup({
      CARRIER_BREAKER_MIN_SUBMITS: "3",
      CARRIER_BREAKER_OPEN_MS: "2000",
      CARRIER_BREAKER_PROBES: "3",
      SEGMENT_MAX_UNANSWERED_SUBMITS: "3",
    }));
    w.simulator.update({ respondToSubmits: false });
    const unknown = await Promise.all(numbers(200, 3).map((to) => w.send(to, `unanswered ${to}`)));
    await waitFor(() => w.dispatcher.health.state("primary") === "open", {
      what: "the breaker to open on timeouts",
    });
    const after = await Promise.all(numbers(300, 5).map((to) => w.send(to, `after ${to}`)));
    for (const message of after) await w.waitForStatus(message.id, ["sent", "delivered"]);
    // The primary answers again: its half-open probes are the unknown ones, sent to it again.
    w.simulator.update({ respondToSubmits: true });
    for (const message of unknown) await w.waitForStatus(message.id, ["sent", "delivered"], 30_000);
    await waitFor(() => w.dispatcher.health.state("primary") === "closed", { what: "the breaker to close" });

    for (const to of numbers(200, 3)) {
      expect(backup.messages({ to })).toHaveLength(0);
      // The duplicate we allow: the same carrier, after no answer.
      expect(w.simulator.messages({ to }).length).toBeGreaterThanOrEqual(2);
      expect(acceptedBy(w.simulator, to)).toHaveLength(1);
    }
    for (const to of numbers(300, 5)) {
      expect(w.simulator.messages({ to })).toHaveLength(0);
      expect(acceptedBy(backup, to)).toHaveLength(1);
    }
    const segments = await w.db.prisma.messageSegment.findMany({
      where: { messageId: { in: unknown.map((m) => m.id) } },
    });
    expect(segments.map((s) => s.carrierId)).toEqual(["primary", "primary", "primary"]);
  }, 90_000);

  it("does not submit to a carrier whose breaker opened while the segment's mark was being written", async () => {
    ({ w, backup } = await startWithBackup({ CARRIER_BREAKER_OPEN_MS: "60000" }));
    // A CI run on a loaded machine: the mark waits for its batch and the database, and the
    // breaker opens meanwhile. Here the primary's breaker reads open the moment its mark is written.
    const primaryOpen = new Set<string>();
    const real = w.dispatcher.health;
    const health = Object.create(real) as CarrierHealth;
    health.state = (carrierId) => (primaryOpen.has(carrierId) ? "open" : real.state(carrierId));
    const pool = w.db.pool;
    const redis = createRedis(w.world.redisUrl, "command");
    const ctx: DispatchContext = {
      pool,
      carriers: w.dispatcher.carriers,
      carrierBudget: createCarrierBudget(redis, { prefix: w.world.redisPrefix, highReservePercent: 20 }),
      logger: createLogger("failover-test", "error"),
      box: createSecretBox(w.world.env.SECRET_ENCRYPTION_KEY!),
      retryLimit: 1,
      health,
      maxUnansweredSubmits: 3,
      marks: new Batcher(
        async (marks) => {
          const answers = await markSubmitting(pool, marks, "test:1");
          for (const mark of marks) if (mark.carrierId === "primary") primaryOpen.add("primary");
          return answers;
        },
        { maxBatch: 10, maxConcurrent: 1 },
      ),
      records: new Batcher((records) => recordSubmitted(pool, records), { maxBatch: 10, maxConcurrent: 1 }),
    };
    try {
      // A queued message no job refers to: only this context dispatches it.
      const id = newId("msg");
      const to = "+14155559001";
      await pool.query(
        `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged, status)
         VALUES ($1, $2, $3, 'ACME', 'opened during its mark', 'GSM7', 1, 1, 'queued')`,
        [id, w.accountId, to],
      );
      await pool.query("INSERT INTO message_events (message_id, sequence, status) VALUES ($1, 1, 'queued')", [
        id,
      ]);
      const [message] = await loadMessages(pool, [id]);
      await expect(dispatchMessage(ctx, message!)).resolves.toBe("sent");
      expect(w.simulator.messages({ to })).toHaveLength(0);
      expect(acceptedBy(backup, to)).toHaveLength(1);
      const segments = await w.db.prisma.messageSegment.findMany({ where: { messageId: id } });
      expect(segments.map((s) => [s.carrierId, s.status])).toEqual([["backup", "submitted"]]);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
