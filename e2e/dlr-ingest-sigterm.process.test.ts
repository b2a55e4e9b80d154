import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import {
  createTestWorld,
  terminate,
  waitFor,
  type ServiceProcess,
  type TestWorld,
  seedSendingAccount,
  seedSimulatorCarrier,
  launchService,
  lockTableFor,
  waitForLockWaiter,
  expectCleanStop,
} from "@sms/testing";
// The dispatcher and the acceptance path put messages with the carrier, so receipts flow.
import type { Acceptance } from "@sms/message-acceptance";
import { createRedis, type Redis } from "@sms/redis";
import { loadDispatcherConfig } from "@sms/dispatcher";
import { startDispatcher, type RunningDispatcher } from "@sms/dispatcher";
import { acceptQueuedBulk } from "./queued-bulk";

const TOTAL = 1500;

/**
 * SIGTERM to a dlr-ingest process while receipts flow: it stops taking receipts (those not yet
 * acknowledged go back to the carrier, which sends them again), lets the ones being applied
 * commit, unbinds and exits 0 within 10 s; a fresh process applies the rest. "Run twice to
 * completion" for dlr-ingest is a receipt applied twice: a message with two 'delivered' events.
 */
describe("dlr-ingest sent SIGTERM under load", () => {
  let world: TestWorld;
  let simulator: CarrierSimulator;
  let db: Database;
  let dispatcher: RunningDispatcher;
  let acceptance: Acceptance;
  let connection: Redis;
  const processes: ServiceProcess[] = [];
  const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);

  async function launch(): Promise<{ service: ServiceProcess; port: number }> {
    return launchService("dlr-ingest", { ...world.env, CARRIER_REFRESH_MS: "500" }, processes);
  }

  beforeAll(async () => {
    world = await createTestWorld();
    // Receipts not acknowledged (the stopped process handed them back) are sent again after 200 ms.
    simulator = await createCarrierSimulator({
      settings: { receiptDelayMs: 0, receiptRetryMs: 200 },
      windowSize: 20,
      logger: createLogger("sim", "error"),
    });
    db = createDatabase(world.databaseUrl, { poolSize: 6 });
    await seedSimulatorCarrier(db.pool, {
      port: simulator.smppPort,
      windowSize: 100,
      transmitterBinds: 2,
      receiverBinds: 2,
    });
    const accountId = newId("acc");
    await seedSendingAccount(db.pool, { id: accountId, name: "sigterm" });
    const logger = createLogger("sigterm-test", "error");
    dispatcher = await startDispatcher(
      loadDispatcherConfig({ ...world.env, PORT: "0", CARRIER_REFRESH_MS: "500" }),
      logger,
    );
    connection = createRedis(world.redisUrl, "queue");
    acceptance = await acceptQueuedBulk({
      pool: db.pool,
      connection,
      redisPrefix: world.redisPrefix,
      accountId,
      total: TOTAL,
      numberPrefix: "+1415557",
      text: "receipt",
      logger,
    });
  }, 60_000);

  afterAll(async () => {
    for (const service of processes) service.kill();
    await dispatcher?.stop();
    await acceptance?.close();
    connection?.disconnect();
    await simulator?.close();
    await db?.close();
    await world?.destroy();
  });

  it("exits 0 within 10 s, unready first; a fresh process applies every receipt; none applied twice", async () => {
    const delivered = () => count("SELECT count(*) AS n FROM messages WHERE status = 'delivered'");
    const first = await launch();
    await waitFor(async () => (await delivered()) >= 200, {
      timeoutMs: 40_000,
      what: "200 receipts applied",
    });
    // A slow database: receipts being applied wait for this lock, and the SIGTERM comes once some
    // do, so the stop waits for them. A stop with nothing in flight was over before a /readyz
    // probe got an answer, and "went unready" could not be seen (CI runs, also when the SIGTERM
    // came during the lock but between two batches of receipts).
    const lock = await lockTableFor(db.pool, "message_segments", 2500);
    await waitForLockWaiter(db.pool, "dlr-ingest", 2000);
    const stopped = await terminate(first.service, first.port);
    await lock.released;
    expectCleanStop(stopped, first.service);
    const atStop = await delivered();
    expect(atStop).toBeLessThan(TOTAL);

    await launch();
    await waitFor(async () => (await delivered()) === TOTAL, {
      timeoutMs: 45_000,
      intervalMs: 250,
      what: "every message delivered",
    });
    expect(
      await count(
        `SELECT count(*) AS n FROM (SELECT message_id FROM message_events WHERE status = 'delivered'
           GROUP BY message_id HAVING count(*) > 1) twice`,
      ),
    ).toBe(0);
    expect(await count("SELECT count(*) AS n FROM message_events WHERE status = 'delivered'")).toBe(TOTAL);
    console.log(`dlr-ingest: SIGTERM at ${atStop}/${TOTAL} delivered, exited in ${stopped.elapsedMs} ms`);
  }, 120_000);
});
