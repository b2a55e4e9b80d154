import { verifyPassword } from "@sms/auth";
import { newId } from "@sms/ids";
import { Client, startTestDashboard, type TestAccount, type TestDashboard } from "./harness";
import { seedAccount, type SeededAccount } from "./seed";

// Two accounts; A's person tries every page and every action with B's ids. Another account's
// id must answer exactly like an id that does not exist, and change nothing of B's.
let t: TestDashboard;
let a: TestAccount;
let b: TestAccount;
let seededA: SeededAccount;
let seededB: SeededAccount;
let client: Client;

beforeAll(async () => {
  t = await startTestDashboard();
  a = await t.createAccount({ senders: ["ALPHA"] });
  b = await t.createAccount({ senders: ["BRAVO"] });
  seededA = await seedAccount(t.db, a.accountId, t.config.SECRET_ENCRYPTION_KEY, "a");
  seededB = await seedAccount(t.db, b.accountId, t.config.SECRET_ENCRYPTION_KEY, "b");
  client = new Client(t.url);
  expect((await client.signIn(a)).status).toBe(303);
});
afterAll(async () => {
  await t?.stop();
});

/** Everything of B's that must never show up on a page of A's. */
const traces = () => [
  b.accountId,
  b.email,
  seededB.messageId,
  seededB.batchId,
  seededB.otpId,
  seededB.otpMessageId,
  seededB.keyId,
  seededB.eventId,
  seededB.systemId,
  seededB.phone,
  seededB.text,
  seededB.inboundNumber,
  seededB.inboundText,
  seededB.webhookUrl,
  seededB.webhookSecret,
  "key of b",
  "boom b",
  "BRAVO",
];

function expectNoTraceOfB(body: string) {
  for (const trace of traces()) expect(body).not.toContain(trace);
}

it("every page of A shows A's data and nothing of B's", async () => {
  const pages = [
    "/",
    "/messages",
    `/messages/${seededA.messageId}`,
    "/otps",
    "/inbound",
    "/settings/api-keys",
    "/settings/webhook",
    "/settings/smpp",
    "/settings/suppressions",
  ];
  for (const path of pages) {
    const reply = await client.get(path);
    expect({ path, status: reply.status }).toEqual({ path, status: 200 });
    expectNoTraceOfB(reply.body);
  }
  // Searching for B's number or batch finds nothing (the form echoes what was typed, nothing more).
  for (const [path, typed] of [
    [`/messages?to=${encodeURIComponent(seededB.phone)}`, seededB.phone],
    [`/messages?batch=${seededB.batchId}`, seededB.batchId],
  ] as const) {
    const reply = await client.get(path);
    expect(reply.status).toBe(200);
    expect(reply.body).toContain("No messages match.");
    expectNoTraceOfB(reply.body.replaceAll(typed, ""));
  }
  expect((await client.get("/messages")).body).toContain(seededA.messageId);
  // The CSV download of the days around now: A's messages, nothing of B's.
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const csv = await client.get(`/messages/export?since=${day(-1)}&until=${day(1)}`);
  expect(csv.status).toBe(200);
  expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(csv.body.split("\r\n")[0]).toMatch(/^id,created_at,to,/);
  expect(csv.body).toContain(seededA.messageId);
  expectNoTraceOfB(csv.body);
  const reversed = await client.get(`/messages/export?since=${day(0)}&until=${day(-1)}`);
  expect(reversed.status).toBe(400);
  expect(reversed.body).toContain("The last day cannot be before the first.");
  expect((await client.get("/otps")).body).toContain(seededA.otpId);
  const inbound = (await client.get("/inbound")).body;
  expect(inbound).toContain(seededA.inboundText);
  expect(inbound).toContain(seededA.inboundNumber);
  expect((await client.get("/settings/api-keys")).body).toContain("key of a");
  expect((await client.get("/settings/smpp")).body).toContain("ALPHA");
  const reveal = await client.post("/settings/webhook/reveal", {}, await client.get("/settings/webhook"));
  expect(reveal.body).toContain(seededA.webhookSecret);
  expectNoTraceOfB(reveal.body);
});

it("B's message, and B's OTP message, answer like an unknown id", async () => {
  const unknown = await client.get(`/messages/${newId("msg")}`);
  expect(unknown.status).toBe(404);
  for (const id of [seededB.messageId, seededB.otpMessageId]) {
    const reply = await client.get(`/messages/${id}`);
    expect(reply.status).toBe(404);
    expect(reply.body).toBe(unknown.body);
  }
});

it("the id of one of A's SMPP parts leads to its message; one of B's answers like an unknown id", async () => {
  const part = (accountId: string, messageId: string) =>
    t.db.pool.query(
      `INSERT INTO smpp_submits (id, account_id, message_id, source_addr, destination_addr, concat_key, part_seq, part_total)
       VALUES ($1, $2, $3, 'ACME', '14155550100', $4, 1, 2) RETURNING id`,
      [newId("msg"), accountId, messageId, `k-${messageId}`],
    );
  const mine = (await part(a.accountId, seededA.messageId)).rows[0].id;
  const theirs = (await part(b.accountId, seededB.messageId)).rows[0].id;
  const reply = await client.get(`/messages/${mine}`);
  expect(reply.status).toBe(303);
  expect(reply.location).toBe(`/messages/${seededA.messageId}`);
  const unknown = await client.get(`/messages/${newId("msg")}`);
  const foreign = await client.get(`/messages/${theirs}`);
  expect(foreign.status).toBe(404);
  expect(foreign.body).toBe(unknown.body);
});

it("revoking B's key is a 404 like an unknown key, and B's key stays active", async () => {
  const page = await client.get("/settings/api-keys");
  const unknown = await client.post(`/settings/api-keys/${newId("key")}/revoke`, {}, page);
  const other = await client.post(`/settings/api-keys/${seededB.keyId}/revoke`, {}, page);
  expect(unknown.status).toBe(404);
  expect(other.status).toBe(404);
  expect(other.body).toBe(unknown.body);
  expect((await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: seededB.keyId } })).revokedAt).toBeNull();
});

it("replaying B's failed delivery is a 404 and B's delivery stays failed; A's own replays", async () => {
  const page = await client.get("/settings/webhook");
  const unknown = await client.post("/settings/webhook/replay", { event: newId("evt") }, page);
  const other = await client.post("/settings/webhook/replay", { event: seededB.eventId }, page);
  expect(unknown.status).toBe(404);
  expect(other.status).toBe(404);
  expect(other.body).toBe(unknown.body);
  expect(
    (await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { eventId: seededB.eventId } })).status,
  ).toBe("failed");
  const own = await client.post("/settings/webhook/replay", { event: seededA.eventId }, page);
  expect(own.status).toBe(200);
  expect(
    (await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { eventId: seededA.eventId } })).status,
  ).toBe("pending");
});

it("replaying by time range, rotating and resetting touch only A's rows", async () => {
  const page = await client.get("/settings/webhook");
  await client.post("/settings/webhook/replay", { days: "30" }, page);
  await client.post("/settings/webhook/rotate", {}, page);
  const smppPage = await client.get("/settings/smpp");
  const reset = await client.post("/settings/smpp/reset-password", {}, smppPage);
  expect(reset.status).toBe(200);
  expectNoTraceOfB(reset.body);
  const b_delivery = await t.db.prisma.webhookDelivery.findUniqueOrThrow({
    where: { eventId: seededB.eventId },
  });
  expect(b_delivery.status).toBe("failed");
  const b_endpoint = await t.db.prisma.webhookEndpoint.findUniqueOrThrow({
    where: { accountId: b.accountId },
  });
  expect(b_endpoint.previousSecretSealed).toBeNull();
  const b_smpp = await t.db.prisma.smppCredential.findUniqueOrThrow({ where: { accountId: b.accountId } });
  expect(await verifyPassword("old-pw", b_smpp.passwordHash)).toBe(true);
  const a_smpp = await t.db.prisma.smppCredential.findUniqueOrThrow({ where: { accountId: a.accountId } });
  expect(await verifyPassword("old-pw", a_smpp.passwordHash)).toBe(false);
});

it("a keyset cursor built from B's row only moves through A's rows", async () => {
  const cursor = Buffer.from(
    JSON.stringify([new Date(Date.now() + 60_000).toISOString(), seededB.messageId]),
  ).toString("base64url");
  const reply = await client.get(`/messages?cursor=${cursor}`);
  expect(reply.status).toBe(200);
  expect(reply.body).toContain(seededA.messageId);
  expectNoTraceOfB(reply.body);
});

it("never shows an OTP message's text, even its redacted form", async () => {
  const reply = await client.get(`/messages/${seededA.otpMessageId}`);
  expect(reply.status).toBe(200);
  expect(reply.body).not.toContain("Your code is");
  expect(reply.body).toContain("its text is never shown");
});
