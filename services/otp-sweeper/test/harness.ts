import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { createAcceptance, type Acceptance } from "@sms/message-acceptance";
import { createSendLimiter, OtpService, type SendOtpRequest } from "@sms/otp";
import { createDispatchProducer, type DispatchProducer } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { loadOtpSweeperConfig, type OtpSweeperConfig } from "../src/config";
import { startOtpSweeper, type RunningOtpSweeper } from "../src/service";

/**
 * A private database and Redis prefix, an account with credits, the gateway's
 * OtpService (the real acceptance path: OTP row, message, credits, dispatch job), and
 * an otp-sweeper factory.
 */
export interface Harness {
  world: TestWorld;
  db: Database;
  accountId: string;
  otp: OtpService;
  config: OtpSweeperConfig;
  start(overrides?: Record<string, string>): Promise<RunningOtpSweeper>;
  /** Sends an OTP as the gateway does; returns its ids. */
  send(phone: string, request?: Omit<SendOtpRequest, "phone">): Promise<{ otpId: string; messageId: string }>;
  /** Moves an OTP's expiry into the past (a test cannot wait 30 s, the shortest lifetime). */
  expireNow(otpId: string): Promise<void>;
  message(id: string): Promise<{
    status: string;
    error_code: string | null;
    body_sealed: string | null;
    credits_charged: number;
  }>;
  otpStatus(otpId: string): Promise<string>;
  balance(): Promise<number>;
  /** Deletes every Redis key of this test's prefix (SCAN + DEL; never FLUSHDB/FLUSHALL on the shared server). */
  flushRedisPrefix(): Promise<number>;
  close(): Promise<void>;
}

export const STARTING_BALANCE = 1000;

export async function createHarness(): Promise<Harness> {
  const world = await createTestWorld();
  const db = createDatabase(world.databaseUrl, { poolSize: 5 });
  const accountId = newId("acc");
  await db.pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'Test', $2, now())", [
    accountId,
    STARTING_BALANCE,
  ]);
  const logger = createLogger("otp-test", "error");
  const redis: Redis = createRedis(world.redisUrl, "command");
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
  const otp = new OtpService(
    {
      pool: db.pool,
      acceptor: acceptance.acceptor,
      limiter: createSendLimiter(redis, { prefix: world.redisPrefix, limit: 1000, windowSeconds: 600 }),
      box: createSecretBox(world.env.SECRET_ENCRYPTION_KEY!),
    },
    { hmacSecret: world.env.OTP_HMAC_SECRET!, maxAttempts: 5, senderId: "Verify" },
  );
  const config = loadOtpSweeperConfig({
    ...world.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_POOL_SIZE: "3",
    OTP_SWEEP_INTERVAL_MS: "100",
    SHUTDOWN_TIMEOUT_MS: "5000",
  });
  const running: RunningOtpSweeper[] = [];

  return {
    world,
    db,
    accountId,
    otp,
    config,
    async start(overrides = {}) {
      const env = Object.fromEntries(Object.entries(config).map(([key, value]) => [key, String(value)]));
      const service = await startOtpSweeper(
        loadOtpSweeperConfig({ ...world.env, ...env, ...overrides }),
        logger,
      );
      running.push(service);
      return service;
    },
    async send(phone, request = {}) {
      const sent = await otp.send(accountId, { phone, ...request });
      return { otpId: sent.otp_id, messageId: sent.message_id };
    },
    async expireNow(otpId) {
      await db.pool.query("UPDATE otps SET expires_at = now() - interval '1 ms' WHERE id = $1", [otpId]);
    },
    async message(id) {
      const { rows } = await db.pool.query(
        "SELECT status, error_code, body_sealed, credits_charged FROM messages WHERE id = $1",
        [id],
      );
      return rows[0];
    },
    async otpStatus(otpId) {
      const { rows } = await db.pool.query<{ status: string }>("SELECT status FROM otps WHERE id = $1", [
        otpId,
      ]);
      return rows[0]!.status;
    },
    async balance() {
      const { rows } = await db.pool.query("SELECT balance FROM accounts WHERE id = $1", [accountId]);
      return Number(rows[0].balance);
    },
    async flushRedisPrefix() {
      let cursor = "0";
      let deleted = 0;
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${world.redisPrefix}:*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) deleted += await redis.del(...keys);
      } while (cursor !== "0");
      return deleted;
    },
    async close() {
      for (const service of running) await service.stop();
      await acceptance.close();
      await producer.close();
      queueConnection.disconnect();
      redis.disconnect();
      await db.close();
      await world.destroy();
    },
  };
}
