import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { loadDispatcherConfig } from "@sms/dispatcher";
import { startDispatcher, type RunningDispatcher } from "@sms/dispatcher";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { pendingDispatchJobsOf } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { loadSchedulerConfig } from "@sms/scheduler";
import { startScheduler, type RunningScheduler } from "@sms/scheduler";
import { waitFor } from "@sms/testing";
import { createHarness, type Harness } from "@sms/otp-sweeper/test/harness";
import { metricValue } from "@sms/metrics";

// docs/README.md#nothing-accepted-is-lost, docs/otp.md#the-sms: losing Redis loses no accepted OTP SMS. The sealed
// text is in PostgreSQL, the scheduler's reconciler re-enqueues the queued message, the
// dispatcher opens the text and the code arrives at the carrier and verifies.
describe("an OTP SMS after a Redis flush (real PostgreSQL, Redis, scheduler, dispatcher, SMPP)", () => {
  let h: Harness;
  let simulator: CarrierSimulator | undefined;
  let scheduler: RunningScheduler | undefined;
  let dispatcher: RunningDispatcher | undefined;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await dispatcher?.stop();
    await scheduler?.stop();
    await simulator?.close();
    await h.close();
  });

  it("still reaches the carrier through the reconciler, and its code verifies", async () => {
    const phone = "+14155550199";
    const { otpId, messageId } = await h.send(phone, { length: 8, template: "flush {code}" });
    // The acceptance handed the job to Redis (its dispatch_outbox row is gone)...
    await waitFor(
      async () =>
        (await h.db.pool.query("SELECT 1 FROM dispatch_outbox WHERE message_id = $1", [messageId]))
          .rowCount === 0,
      { what: "the dispatch job in Redis" },
    );
    const connection = createRedis(h.world.redisUrl, "queue");
    const context = { connection, prefix: h.world.redisPrefix };
    try {
      // OTPs go in the high class.
      expect((await pendingDispatchJobsOf(context, messageId)).map((held) => held.priority)).toEqual([
        "high",
      ]);
      // ...and Redis loses it: only this test's keys, never FLUSHALL on the shared server.
      expect(await h.flushRedisPrefix()).toBeGreaterThan(0);
      expect(await pendingDispatchJobsOf(context, messageId)).toEqual([]);
    } finally {
      connection.disconnect();
    }
    expect((await h.message(messageId)).status).toBe("queued");

    simulator = await createCarrierSimulator({ settings: { receiptDelayMs: 20 } });
    await h.db.prisma.carrier.create({
      data: {
        id: "sim",
        name: "sim",
        host: "127.0.0.1",
        port: simulator.smppPort,
        systemId: "platform",
        password: "secret",
        windowSize: 20,
        submitsPerSecond: 10000,
      },
    });
    await h.db.prisma.route.create({ data: { id: newId("snd"), prefix: "+", carrierId: "sim" } });
    const logger = createLogger("otp-flush-test", "error");
    dispatcher = await startDispatcher(
      loadDispatcherConfig({ ...h.world.env, PORT: "0", CARRIER_REFRESH_MS: "200" }),
      logger,
    );
    await waitFor(() => (dispatcher!.carriers.status().sim?.bound ?? 0) > 0, { what: "carrier bind" });
    // The otp-sweeper runs beside them and must leave a pending OTP's SMS alone.
    const otpService = await h.start();
    scheduler = await startScheduler(
      loadSchedulerConfig({
        ...h.world.env,
        PORT: "0",
        HOST: "127.0.0.1",
        RECONCILE_INTERVAL_MS: "200",
        RECONCILE_STALE_AFTER_MS: "500",
      }),
      logger,
    );

    const received = await waitFor(
      () => simulator!.messages({ to: phone.slice(1) }).find((m) => m.text?.startsWith("flush ")),
      { what: "the OTP SMS at the carrier", timeoutMs: 20_000 },
    );
    const code = received.text!.slice("flush ".length);
    expect(code).toMatch(/^\d{8}$/);
    await waitFor(async () => (await h.message(messageId)).status === "sent", { what: "the SMS sent" });
    expect(await metricValue(scheduler.metrics.reenqueued)).toBeGreaterThan(0);
    expect(await metricValue(otpService.metrics.messagesFailed)).toBe(0);
    expect(await h.otp.verify(h.accountId, otpId, code)).toMatchObject({
      verified: true,
      status: "verified",
    });
  });
});
