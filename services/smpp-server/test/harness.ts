import crypto from "node:crypto";
import pg from "pg";
import { DATABASE_SESSION_OPTIONS } from "@sms/db";
import { hashSmppPassword } from "@sms/auth";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { createSmppReceiptProducer, openQueue, QUEUES, SmppReceiptJob } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { SmppClient, type SmppClientOptions } from "@sms/smpp";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { loadSmppServerConfig } from "../src/config";
import { startSmppServer, type RunningSmppServer } from "../src/service";

/** A customer account with SMPP credentials. */
export interface TestCustomer {
  accountId: string;
  systemId: string;
  password: string;
}

/** A private database and Redis prefix, and an smpp-server on ephemeral ports. */
export interface Harness {
  world: TestWorld;
  pool: pg.Pool;
  server: RunningSmppServer;
  redis: Redis;
  /** Makes an account (credits, sender id ACME) with SMPP credentials. */
  addCustomer(options?: {
    credits?: number;
    maxBinds?: number;
    rps?: number;
    senders?: string[];
  }): Promise<TestCustomer>;
  /** An SmppClient bound as `customer` (closed by close()). */
  bind(customer: TestCustomer, options?: Partial<SmppClientOptions>): Promise<SmppClient>;
  /** Puts a receipt job on smpp.dlr-out, as the outbox relay does; resolves to its job id (the event id). */
  enqueueReceipt(
    job: Omit<SmppReceiptJob, "eventId" | "sequence" | "previousStatus" | "occurredAt"> &
      Partial<SmppReceiptJob>,
  ): Promise<string>;
  /** Waits until the smpp-server has processed these smpp.dlr-out jobs (their receipts stored, or found not owed). */
  waitForReceiptJobs(jobIds: string[]): Promise<void>;
  /** An smpp.dlr-out job as BullMQ holds it now (attempts made, why the last one failed). */
  receiptJob(jobId: string): Promise<{ attemptsMade: number; failedReason?: string } | undefined>;
  message(id: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const world = await createTestWorld();
  const pool = new pg.Pool({
    connectionString: world.databaseUrl,
    max: 4,
    options: DATABASE_SESSION_OPTIONS,
  });
  pool.on("error", () => undefined);
  const config = loadSmppServerConfig({
    ...world.env,
    PORT: "0",
    HOST: "127.0.0.1",
    SMPP_PORT: "0",
    BIND_FAILURE_DELAY_MS: "10",
    RECEIPT_SWEEP_MS: "100",
    // Every test client comes from 127.0.0.1: per-address caps and throttling would count them as one.
    // Tests of those limits (binds, hostile) set them back, and use other loopback addresses.
    SMPP_MAX_CONNECTIONS_PER_ADDRESS: "100000",
    BIND_ADDRESS_FREE_FAILURES: "100000",
    ...env,
  });
  const server = await startSmppServer(
    config,
    createLogger("smpp-server", process.env.TEST_LOG_LEVEL ?? "error"),
  );
  const redis = createRedis(world.redisUrl, "queue");
  const receipts = createSmppReceiptProducer({ connection: redis, prefix: world.redisPrefix });
  const receiptJobs = openQueue<SmppReceiptJob>(
    { connection: redis, prefix: world.redisPrefix },
    QUEUES.smppDlrOut,
  );
  const clients: SmppClient[] = [];
  return {
    world,
    pool,
    server,
    redis,
    async addCustomer({ credits = 1000, maxBinds = 4, rps = 1000, senders = ["ACME"] } = {}) {
      const accountId = newId("acc");
      const systemId = `c${crypto.randomBytes(5).toString("hex")}`;
      const password = crypto.randomBytes(4).toString("hex");
      await pool.query(
        `INSERT INTO accounts (id, name, balance, requests_per_second, updated_at) VALUES ($1, 'smpp test', $2, $3, now())`,
        [accountId, credits, rps],
      );
      for (const sender of senders)
        await pool.query("INSERT INTO sender_ids (id, account_id, value) VALUES ($1, $2, $3)", [
          newId("snd"),
          accountId,
          sender,
        ]);
      await pool.query(
        "INSERT INTO smpp_credentials (system_id, account_id, password_hash, max_binds) VALUES ($1, $2, $3, $4)",
        [systemId, accountId, await hashSmppPassword(password), maxBinds],
      );
      return { accountId, systemId, password };
    },
    async bind(customer, options = {}) {
      const client = new SmppClient({
        host: "127.0.0.1",
        port: server.smppPort,
        systemId: customer.systemId,
        password: customer.password,
        reconnect: false,
        enquireLinkIntervalMs: 0,
        windowSize: 100,
        ...options,
      });
      clients.push(client);
      await client.connect();
      return client;
    },
    async enqueueReceipt(job) {
      const eventId = job.eventId ?? newId("evt");
      const data = SmppReceiptJob.parse({
        sequence: 3,
        previousStatus: "sent",
        occurredAt: new Date().toISOString(),
        ...job,
        eventId,
      });
      await receipts.enqueue([data]);
      return eventId;
    },
    async waitForReceiptJobs(jobIds) {
      await waitFor(
        async () => {
          const states = await Promise.all(jobIds.map((id) => receiptJobs.getJobState(id)));
          return states.every((state) => state === "completed") || undefined;
        },
        { what: `smpp.dlr-out jobs ${jobIds.join(", ")} completed` },
      );
    },
    async receiptJob(jobId) {
      return receiptJobs.getJob(jobId);
    },
    async message(id) {
      return (await pool.query("SELECT * FROM messages WHERE id = $1", [id])).rows[0];
    },
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await server.stop();
      await receipts.close();
      await receiptJobs.close();
      redis.disconnect();
      await pool.end();
      await world.destroy();
    },
  };
}

/** Waits until `pool` shows the message with one of `statuses`. */
export async function waitForMessageCount(pool: pg.Pool, accountId: string, count: number): Promise<void> {
  await waitFor(
    async () =>
      (await pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [accountId])).rows[0]
        .n >= count,
    { what: `${count} messages` },
  );
}
