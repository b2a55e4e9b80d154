import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator/src/simulator";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { createAcceptance, type Acceptance } from "@sms/message-acceptance";
import { createDispatchProducer } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import {
  createTestWorld,
  freePort,
  startServiceProcess,
  terminate,
  waitFor,
  type ServiceProcess,
  type TestWorld,
} from "@sms/testing";
import { loadDlrIngestConfig } from "../../dlr-ingest/src/config";
import { startDlrIngest, type RunningDlrIngest } from "../../dlr-ingest/src/service";

const TOTAL = 1500;

/**
 * SIGTERM to a dispatcher process while messages flow: it stops taking jobs, lets the
 * submits on the wire finish, and exits 0 within 10 s; a fresh dispatcher ends the rest.
 * "Run twice to completion" for a dispatcher is a segment submitted twice to the carrier.
 */
describe("a dispatcher sent SIGTERM under load", () => {
  let world: TestWorld;
  let simulator: CarrierSimulator;
  let db: Database;
  let dlr: RunningDlrIngest;
  let acceptance: Acceptance;
  let connection: Redis;
  const processes: ServiceProcess[] = [];
  const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);

  async function startDispatcherProcess(): Promise<{ service: ServiceProcess; port: number }> {
    const port = await freePort();
    const service = startServiceProcess("dispatcher", {
      ...world.env,
      PORT: String(port),
      CARRIER_REFRESH_MS: "500",
      DISPATCH_CONCURRENCY: "100",
      DISPATCH_LOCK_MS: "5000",
      DISPATCH_STALLED_CHECK_MS: "1000",
    });
    processes.push(service);
    await service.waitReady(port);
    return { service, port };
  }

  beforeAll(async () => {
    world = await createTestWorld();
    // Each submit_sm is answered after 50 ms, so the dispatcher always has submits on the wire.
    simulator = await createCarrierSimulator({
      settings: { receiptDelayMs: 10, submitLatencyMs: 50 },
      windowSize: 200,
      logger: createLogger("sim", "error"),
    });
    db = createDatabase(world.databaseUrl, { poolSize: 6 });
    await db.prisma.carrier.create({
      data: {
        id: "sim",
        name: "sim",
        host: "127.0.0.1",
        port: simulator.smppPort,
        systemId: "platform",
        password: "secret",
        windowSize: 50,
        transmitterBinds: 2,
        submitsPerSecond: 100000,
      },
    });
    await db.prisma.route.create({ data: { id: "rte_all", prefix: "+", carrierId: "sim" } });
    const accountId = newId("acc");
    await db.prisma.account.create({
      data: {
        id: accountId,
        name: "sigterm",
        balance: 1_000_000n,
        messagesPerSecond: 100000,
        senderIds: { create: [{ id: newId("snd"), value: "ACME" }] },
      },
    });
    const logger = createLogger("sigterm-test", "error");
    dlr = await startDlrIngest(
      loadDlrIngestConfig({ ...world.env, PORT: "0", CARRIER_REFRESH_MS: "500" }),
      logger,
    );
    connection = createRedis(world.redisUrl, "queue");
    acceptance = createAcceptance({
      pool: db.pool,
      producer: createDispatchProducer({ connection, prefix: world.redisPrefix }),
      logger,
      options: { maxSegments: 10, creditsPerSegment: 1 },
    });
    // Numbers ending 1000…: clear of the simulator's magic suffixes (0001–0010).
    const items = Array.from({ length: TOTAL }, (_, i) => ({
      to: `+1415556${String(1000 + i).padStart(4, "0")}`,
      message: `sigterm ${i}`,
    }));
    const result = await acceptance.acceptor.acceptBulk(
      { id: accountId, senderIds: new Set(["ACME"]) },
      { senderId: "ACME", items, maxItems: TOTAL },
    );
    expect(result.accepted).toHaveLength(TOTAL);
    await acceptance.outbox.settle();
  }, 60_000);

  afterAll(async () => {
    for (const service of processes) service.kill();
    await acceptance?.close();
    connection?.disconnect();
    await dlr?.stop();
    await simulator?.close();
    await db?.close();
    await world?.destroy();
  });

  it("exits 0 within 10 s, unready first; a fresh dispatcher ends every message; no segment submitted twice", async () => {
    const first = await startDispatcherProcess();
    await waitFor(
      async () =>
        (await count(
          "SELECT count(*) AS n FROM message_segments WHERE status IN ('submitted', 'delivered')",
        )) >= 200,
      { timeoutMs: 40_000, what: "200 segments with the carrier" },
    );
    const stopped = await terminate(first.service, first.port);
    expect({ code: stopped.code, signal: stopped.signal, stderr: first.service.stderr() }).toEqual({
      code: 0,
      signal: null,
      stderr: "",
    });
    expect(stopped.elapsedMs).toBeLessThan(10_000);
    expect({ wentUnready: stopped.wentUnready, readiness: stopped.readiness }).toMatchObject({
      wentUnready: true,
    });
    // Nothing left on the wire: every submit the stopped dispatcher started got its answer recorded.
    expect(await count("SELECT count(*) AS n FROM message_segments WHERE status = 'submitting'")).toBe(0);
    const doneAtStop = await count(
      "SELECT count(*) AS n FROM message_segments WHERE status IN ('submitted', 'delivered')",
    );
    expect(doneAtStop).toBeLessThan(TOTAL);

    await startDispatcherProcess();
    await waitFor(
      async () => (await count("SELECT count(*) AS n FROM messages WHERE status = 'delivered'")) === TOTAL,
      { timeoutMs: 45_000, intervalMs: 250, what: "every message delivered" },
    );
    expect(simulator.stats().submits.accepted).toBe(TOTAL);
    const texts = simulator.messages({ limit: TOTAL * 2 }).map((message) => message.text);
    expect(texts).toHaveLength(TOTAL);
    expect(new Set(texts).size).toBe(TOTAL);
    console.log(`dispatcher: SIGTERM at ${doneAtStop}/${TOTAL} submitted, exited in ${stopped.elapsedMs} ms`);
  }, 120_000);
});
