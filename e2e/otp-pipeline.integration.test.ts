import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { createSmsClient } from "@sms/client";
import { loadDispatcherConfig } from "@sms/dispatcher";
import { startDispatcher, type RunningDispatcher } from "@sms/dispatcher";
import { newId } from "@sms/ids";
import { createLogger, type Logger } from "@sms/logger";
import { expireDueOtps } from "@sms/otp";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import {
  expectError,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@sms/api-gateway/test/harness";

// OTPs end to end: gateway → sms.dispatch → dispatcher → SMPP → carrier simulator. The
// test learns each code only from what the simulator received, as a user reads it off
// the handset; at the end it searches everything we wrote or said for the codes.
let world: TestWorld;
let simulator: CarrierSimulator;
let gw: TestGateway;
let dispatcher: RunningDispatcher;
let acme: TestAccount;
let redis: Redis;
const logs: string[] = [];
const responses: string[] = [];
const codesSeen = new Set<string>();

/** A debug-level logger that keeps every line (and prints none), so the test can search the logs. */
function capturingLogger(service: string): Logger {
  const previous = process.env.LOG_SILENT;
  process.env.LOG_SILENT = "true";
  const logger = createLogger(service, "debug");
  if (previous === undefined) delete process.env.LOG_SILENT;
  else process.env.LOG_SILENT = previous;
  // The logger is a stream of log entries; its transports are only one reader.
  logger.on("data", (entry: unknown) => logs.push(JSON.stringify(entry)));
  return logger;
}

beforeAll(async () => {
  world = await createTestWorld();
  simulator = await createCarrierSimulator({ settings: { receiptDelayMs: 20 } });
  gw = await startTestGateway({}, world, capturingLogger("api-gateway"));
  await gw.db.prisma.carrier.create({
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
  await gw.db.prisma.route.create({ data: { id: newId("snd"), prefix: "+", carrierId: "sim" } });
  const config = loadDispatcherConfig({
    ...world.env,
    PORT: "0",
    CARRIER_REFRESH_MS: "200",
    LOG_LEVEL: "debug",
  });
  dispatcher = await startDispatcher(config, capturingLogger("dispatcher"));
  await waitFor(() => (dispatcher.carriers.status().sim?.bound ?? 0) > 0, { what: "carrier bind" });
  acme = await gw.createAccount({ credits: 1000 });
  redis = createRedis(world.redisUrl, "command");
});

afterAll(async () => {
  redis?.disconnect();
  await dispatcher?.stop();
  await gw?.stop();
  await simulator?.close();
  await world?.destroy();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await gw.request(method, path, { key: acme.key, body });
  responses.push(JSON.stringify(response.body), JSON.stringify([...response.headers]));
  return response;
}

/** The typed client, as a customer calls us; every answer is kept for the search for codes at the end. */
const client = () =>
  createSmsClient({
    baseUrl: gw.url,
    apiKey: acme.key,
    fetch: async (request) => {
      const response = await fetch(request);
      responses.push(await response.clone().text(), JSON.stringify([...response.headers]));
      return response;
    },
  });

/** Sends an OTP and reads its code off the simulator, found by the template's marker. */
async function sendAndReceive(phone: string, marker: string, extra: Record<string, unknown> = {}) {
  const sent = await call("POST", "/v1/otp/send", {
    phone,
    length: 8,
    template: `${marker} {code}`,
    ...extra,
  });
  expect(sent.status).toBe(201);
  const received = await waitFor(
    () => simulator.messages({ to: phone.slice(1) }).find((m) => m.text?.startsWith(`${marker} `)),
    { what: `the SMS of ${marker}` },
  );
  const code = received.text!.slice(marker.length + 1);
  expect(code).toMatch(/^\d{8}$/);
  codesSeen.add(code);
  return { otpId: sent.body.otp_id as string, messageId: sent.body.message_id as string, code };
}

const verify = (otpId: string, code: string) => call("POST", "/v1/otp/verify", { otp_id: otpId, code });
const wrong = (code: string) => String((Number(code) + 1) % 1e8).padStart(8, "0");

it("delivers the code over SMPP and verifies it once; the message log shows the OTP verified and the SMS sent", async () => {
  const { otpId, messageId, code } = await sendAndReceive("+14155552671", "happy");
  // Through the typed client, as a customer would.
  const ok = await client().verifyOtp({ otp_id: otpId, code });
  expect(ok).toEqual({ otp_id: otpId, verified: true, status: "verified", attempts_remaining: 4 });
  await expect(client().verifyOtp({ otp_id: otpId, code })).rejects.toMatchObject({
    name: "SmsApiError",
    status: 409,
    code: "OTP_ALREADY_VERIFIED",
  });
  expect(await client().getOtp(otpId)).toMatchObject({ status: "verified", verified_at: expect.any(String) });
  const message = await waitFor(
    async () => {
      const m = await client().getMessage(messageId);
      return m.status === "sent" ? m : undefined;
    },
    { what: "the OTP's SMS sent" },
  );
  expect(message).toMatchObject({
    source: "otp",
    message: "happy ********",
    otp: { otp_id: otpId, status: "verified" },
  });
  // The sealed text is wiped once the message has left queued.
  const { rows } = await gw.db.pool.query("SELECT body_sealed FROM messages WHERE id = $1", [messageId]);
  expect(rows[0].body_sealed).toBeNull();
  // message.* events carry the otp_id for the webhooks (docs/webhooks.md#payload).
  const events = await gw.db.pool.query(
    "SELECT type, payload FROM events WHERE message_id = $1 ORDER BY sequence",
    [messageId],
  );
  expect(events.rows.map((e) => e.type)).toEqual(["message.queued", "message.sent"]);
  for (const event of events.rows) expect(event.payload.otp_id).toBe(otpId);
});

it("a wrong code is refused and leaves the right one working", async () => {
  const { otpId, code } = await sendAndReceive("+14155552672", "wrong");
  expect((await verify(otpId, wrong(code))).body).toEqual({
    otp_id: otpId,
    verified: false,
    status: "pending",
    attempts_remaining: 4,
  });
  expect((await verify(otpId, code)).body).toMatchObject({ verified: true, attempts_remaining: 3 });
});

it("the right code fails once the OTP has expired, and the otp-sweeper marks it expired", async () => {
  const { otpId, code } = await sendAndReceive("+14155552673", "expiry", { expiry: 30 });
  await gw.db.pool.query("UPDATE otps SET expires_at = now() - interval '1 ms' WHERE id = $1", [otpId]);
  expectError(await verify(otpId, code), 410, "OTP_EXPIRED");
  expect(await expireDueOtps(gw.db.pool)).toContain(otpId);
  expect((await call("GET", `/v1/otp/${otpId}`)).body.status).toBe("expired");
  expectError(await verify(otpId, code), 410, "OTP_EXPIRED");
});

it("the right code of a superseded OTP fails; the newer one works", async () => {
  const old = await sendAndReceive("+14155552674", "first");
  const newer = await sendAndReceive("+14155552674", "second");
  expectError(await verify(old.otpId, old.code), 410, "OTP_EXPIRED");
  expect((await verify(newer.otpId, newer.code)).body.verified).toBe(true);
});

it("100 concurrent wrong guesses count at most 5, then the OTP is locked and the right code fails", async () => {
  const { otpId, code } = await sendAndReceive("+14155552675", "guess");
  const guesses = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      verify(otpId, String((Number(code) + 1 + i) % 1e8).padStart(8, "0")),
    ),
  );
  const checked = guesses.filter((g) => g.status === 200);
  expect(checked.length).toBeLessThanOrEqual(5);
  expect(checked.every((g) => g.body.verified === false)).toBe(true);
  for (const g of guesses.filter((g) => g.status !== 200)) expectError(g, 429, "OTP_MAX_ATTEMPTS");
  const { rows } = await gw.db.pool.query("SELECT attempts, status FROM otps WHERE id = $1", [otpId]);
  expect(rows[0]).toEqual({ attempts: 5, status: "failed" });
  expectError(await verify(otpId, code), 429, "OTP_MAX_ATTEMPTS");
  expect((await call("GET", `/v1/otp/${otpId}`)).body).toMatchObject({
    status: "failed",
    attempts_remaining: 0,
  });
});

it("no code appears in the logs, the database, Redis, the API responses or the webhook payloads", async () => {
  expect(codesSeen.size).toBeGreaterThanOrEqual(6);
  expect(logs.length).toBeGreaterThan(0);
  const tables = await gw.db.pool.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const dump: string[] = [];
  // And the events as their webhooks carry them: a status event's data is built from its message
  // and history, stored nowhere as such.
  for (const table_name of [...tables.rows.map((t) => t.table_name as string), "events"]) {
    const rows = await gw.db.pool.query(`SELECT t::text AS row FROM "${table_name}" AS t`);
    dump.push(...rows.rows.map((r) => `${table_name}: ${r.row}`));
  }
  expect(dump.some((row) => row.startsWith("events:") && row.includes("otp_id"))).toBe(true);
  const redisValues: string[] = [];
  for (const key of await redis.keys(`${world.redisPrefix}*`)) {
    const type = await redis.type(key);
    if (type === "string") redisValues.push(String(await redis.get(key)));
    if (type === "hash") redisValues.push(JSON.stringify(await redis.hgetall(key)));
    if (type === "list") redisValues.push(JSON.stringify(await redis.lrange(key, "0", "-1")));
    if (type === "zset") redisValues.push(JSON.stringify(await redis.zrange(key, "0", "-1")));
  }
  for (const code of codesSeen) {
    expect(logs.filter((line) => line.includes(code))).toEqual([]);
    expect(dump.filter((row) => row.includes(code))).toEqual([]);
    expect(redisValues.filter((value) => value.includes(code))).toEqual([]);
    // The only response that may carry a code is none: the verify requests' bodies are ours, not responses.
    expect(responses.filter((body) => body.includes(code))).toEqual([]);
  }
});
