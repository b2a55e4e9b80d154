import { generateApiKey } from "@sms/auth";
import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { createAcceptance, type Acceptance, type PreparedMessage } from "@sms/message-acceptance";
import { createDispatchProducer, type DispatchProducer } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, freePort, waitFor, type TestWorld } from "@sms/testing";
import { loadDispatcherConfig } from "../src/config";
import { startDispatcher, type RunningDispatcher } from "../src/dispatcher";

export interface CarrierSpec {
  id: string;
  /** Points the carrier at the shared simulator unless a port is given (e.g. a closed one). */
  port?: number;
  priority?: number;
  prefix?: string;
  /** @defaultValue 20 */
  windowSize?: number;
  /** @defaultValue 2 */
  transmitterBinds?: number;
  /** Over 0: transceiver binds only (docs/decisions.md#transceiver-binds). @defaultValue 0 */
  transceiverBinds?: number;
  /** @defaultValue 10000 */
  submitsPerSecond?: number;
  /** @defaultValue "as_is" */
  receiptIdForm?: "as_is" | "hex" | "decimal";
}

/** A simulator, a database with carriers and routes, an acceptor and a dispatcher, all real. */
export interface DispatchWorld {
  world: TestWorld;
  db: Database;
  simulator: CarrierSimulator;
  dispatcher: RunningDispatcher;
  accountId: string;
  acceptance: Acceptance;
  /** The producer the acceptance hands off with (to queue jobs as another service would). */
  producer: DispatchProducer;
  /** Another account with the ACME sender id and plenty of credits; @defaultValue messagesPerSecond 100000 */
  createAccount(options?: { messagesPerSecond?: number }): Promise<string>;
  /** Another dispatcher replica on the same world (its settings: the first one's with `env` over them), stopped with it. */
  startReplica(env: Record<string, string>): Promise<RunningDispatcher>;
  send(to: string, text: string): Promise<PreparedMessage>;
  waitForStatus(messageId: string, statuses: string[], timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startDispatchWorld(
  options: {
    carriers?: CarrierSpec[];
    credits?: number;
    env?: Record<string, string>;
    simulatorSettings?: Parameters<typeof createCarrierSimulator>[0];
  } = {},
): Promise<DispatchWorld> {
  const world = await createTestWorld();
  const simulator = await createCarrierSimulator({
    settings: { receiptDelayMs: 20 },
    ...(options.simulatorSettings ?? {}),
  });
  const db = createDatabase(world.databaseUrl, { poolSize: 4 });
  const carriers = options.carriers ?? [{ id: "sim" }];
  for (const carrier of carriers) {
    await db.prisma.carrier.create({
      data: {
        id: carrier.id,
        name: carrier.id,
        host: "127.0.0.1",
        port: carrier.port ?? simulator.smppPort,
        systemId: "platform",
        password: "secret",
        windowSize: carrier.windowSize ?? 20,
        submitsPerSecond: carrier.submitsPerSecond ?? 10000,
        transmitterBinds: carrier.transmitterBinds ?? 2,
        transceiverBinds: carrier.transceiverBinds ?? 0,
        receiptIdForm: carrier.receiptIdForm ?? "as_is",
      },
    });
    await db.prisma.route.create({
      data: {
        id: newId("snd"),
        prefix: carrier.prefix ?? "+",
        carrierId: carrier.id,
        priority: carrier.priority ?? 0,
      },
    });
  }
  const accountId = newId("acc");
  const key = generateApiKey();
  await db.prisma.account.create({
    data: {
      id: accountId,
      name: "dispatch test",
      balance: BigInt(options.credits ?? 100000),
      messagesPerSecond: 100000,
      senderIds: { create: [{ id: newId("snd"), value: "ACME" }] },
      apiKeys: {
        create: [{ id: newId("key"), name: "t", prefix: key.prefix, hash: key.hash, permissions: [] }],
      },
    },
  });
  const logger = createLogger("dispatch-test", (process.env.TEST_LOG_LEVEL as "error") ?? "error");
  const queueConnection: Redis = createRedis(world.redisUrl, "queue");
  const producer: DispatchProducer = createDispatchProducer({
    connection: queueConnection,
    prefix: world.redisPrefix,
  });
  const acceptance: Acceptance = createAcceptance({
    pool: db.pool,
    producer,
    logger,
    options: { maxSegments: 10, creditsPerSegment: 1 },
  });
  const settings = {
    ...world.env,
    PORT: "0",
    CARRIER_REFRESH_MS: "200",
    SUBMIT_TIMEOUT_MS: "1500",
    THROTTLE_BACKOFF_MS: "20",
    ...(options.env ?? {}),
  };
  const reachable = carriers.filter((c) => c.port === undefined).map((c) => c.id);
  const startBound = async (env: Record<string, string>) => {
    const started = await startDispatcher(loadDispatcherConfig({ ...settings, ...env }), logger);
    await waitFor(() => reachable.every((id) => (started.carriers.status()[id]?.bound ?? 0) > 0), {
      what: "carrier binds",
    });
    return started;
  };
  const dispatcher = await startBound({});
  const replicas: RunningDispatcher[] = [];
  return {
    world,
    db,
    simulator,
    dispatcher,
    accountId,
    acceptance,
    producer,
    async createAccount({ messagesPerSecond = 100000 } = {}) {
      const id = newId("acc");
      await db.prisma.account.create({
        data: {
          id,
          name: `account ${id}`,
          balance: 100000n,
          messagesPerSecond,
          senderIds: { create: [{ id: newId("snd"), value: "ACME" }] },
        },
      });
      return id;
    },
    async startReplica(env) {
      const replica = await startBound(env);
      replicas.push(replica);
      return replica;
    },
    send: (to, text) =>
      acceptance.acceptor.acceptOne(
        { id: accountId, senderIds: new Set(["ACME"]) },
        { to, message: text, senderId: "ACME" },
      ),
    async waitForStatus(messageId, statuses, timeoutMs = 15000) {
      const row = await waitFor(
        async () => {
          const message = await db.prisma.message.findUnique({
            where: { id: messageId },
            select: { status: true },
          });
          return message && statuses.includes(message.status) ? message : undefined;
        },
        { timeoutMs, what: `${messageId} to reach ${statuses.join("/")}` },
      );
      return row.status;
    },
    async stop() {
      for (const replica of replicas) await replica.stop();
      await dispatcher.stop();
      await acceptance.close();
      await producer.close();
      queueConnection.disconnect();
      await simulator.close();
      await db.close();
      await world.destroy();
    },
  };
}

/** A TCP port nothing listens on: a carrier that is down. */
export const closedPort = freePort;
