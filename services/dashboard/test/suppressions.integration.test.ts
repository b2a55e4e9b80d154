import { addSuppression, applyOptOutKeyword, getSuppression } from "@sms/suppressions";
import { Client, startTestDashboard, type TestAccount, type TestDashboard } from "./harness";

// The Opt-outs page: A's list only; add and remove; B's numbers answer like unknown ones.
let t: TestDashboard;
let a: TestAccount;
let b: TestAccount;
let client: Client;
const stoppedA = "+14155550171";
const listedB = "+14155550172";

beforeAll(async () => {
  t = await startTestDashboard();
  a = await t.createAccount({ senders: ["ALPHA"] });
  b = await t.createAccount({ senders: ["BRAVO"] });
  await applyOptOutKeyword(t.db.pool, {
    accountId: a.accountId,
    from: stoppedA,
    to: "+14155550999",
    text: "STOP",
  });
  await addSuppression(t.db.pool, { accountId: b.accountId, number: listedB, source: "api" });
  client = new Client(t.url);
  expect((await client.signIn(a)).status).toBe(303);
});
afterAll(async () => {
  await t?.stop();
});

it("lists A's opt-outs with how they came, and nothing of B's", async () => {
  const page = await client.get("/settings/suppressions");
  expect(page.status).toBe(200);
  expect(page.body).toContain(stoppedA);
  expect(page.body).toContain("replied STOP");
  expect(page.body).toContain("+14155550999");
  expect(page.body).not.toContain(listedB);
});

it("adds a number (normalized), refuses one that is not a number, and removes", async () => {
  let page = await client.get("/settings/suppressions");
  const bad = await client.post("/settings/suppressions", { number: "hello" }, page);
  expect(bad.status).toBe(400);
  expect(bad.body).toContain("leading +");
  const added = await client.post("/settings/suppressions", { number: "+1 415 555 0173" }, page);
  expect(added.status).toBe(303);
  page = await client.get(added.location!);
  expect(page.body).toContain("+14155550173");
  expect(await getSuppression(t.db.pool, a.accountId, "+14155550173")).toMatchObject({ source: "api" });
  const removed = await client.post(
    `/settings/suppressions/${encodeURIComponent("+14155550173")}/remove`,
    {},
    page,
  );
  expect(removed.status).toBe(303);
  expect(await getSuppression(t.db.pool, a.accountId, "+14155550173")).toBeNull();
});

it("removing B's number answers like an unknown number and leaves it on B's list", async () => {
  const page = await client.get("/settings/suppressions");
  const unknown = await client.post(
    `/settings/suppressions/${encodeURIComponent("+14155550174")}/remove`,
    {},
    page,
  );
  const other = await client.post(`/settings/suppressions/${encodeURIComponent(listedB)}/remove`, {}, page);
  expect(unknown.status).toBe(404);
  expect(other.status).toBe(404);
  expect(other.body).toBe(unknown.body);
  expect(await getSuppression(t.db.pool, b.accountId, listedB)).not.toBeNull();
});
