import { Client, startTestDashboard, type TestAccount, type TestDashboard } from "./harness";

// The webhook page's events form (docs/decisions.md#webhook-event-types): all events or a
// chosen few, with the CSRF token every form carries; a bad form is a form error, not a crash.
let t: TestDashboard;
let account: TestAccount;
let client: Client;

beforeAll(async () => {
  t = await startTestDashboard();
  account = await t.createAccount();
  client = new Client(t.url);
  expect((await client.signIn(account)).status).toBe(303);
});
afterAll(async () => {
  await t?.stop();
});

const stored = async (accountId = account.accountId) =>
  (await t.db.pool.query("SELECT event_types FROM webhook_endpoints WHERE account_id = $1", [accountId]))
    .rows[0]?.event_types;

/** The checkbox of an event type, as the page renders it. */
const box = (body: string, type: string) =>
  new RegExp(`<input\\s+type="checkbox"\\s+id="event-${type.replace(".", "-")}"[^>]*>`).exec(body)?.[0] ?? "";

it("an account without an endpoint gets no events form, and saving events asks for a URL first", async () => {
  const other = await t.createAccount();
  const fresh = new Client(t.url);
  await fresh.signIn(other);
  const page = await fresh.get("/settings/webhook");
  expect(page.body).not.toContain('action="/settings/webhook/events"');
  const saved = await fresh.post("/settings/webhook/events", { events: "all" }, page);
  expect(saved.status).toBe(409);
  expect(saved.body).toContain("Set a webhook URL first.");
  expect(await stored(other.accountId)).toBeUndefined();
});

it("a new endpoint receives all events; ticking delivered and failed stores exactly those, and all again clears it", async () => {
  let page = await client.get("/settings/webhook");
  await client.post("/settings/webhook", { url: "http://127.0.0.1:9/hooks" }, page);
  page = await client.get("/settings/webhook");
  expect(page.body).toContain("All events");
  expect(page.body).toMatch(/id="events-all" name="events" value="all" checked/);
  expect(await stored()).toBeNull();

  const saved = await client.post(
    "/settings/webhook/events",
    { events: "some", types: ["message.delivered", "message.failed"] },
    page,
  );
  expect(saved.status).toBe(200);
  expect(saved.body).toContain("Your endpoint now receives message.delivered, message.failed.");
  expect(await stored()).toEqual(["message.delivered", "message.failed"]);
  page = await client.get("/settings/webhook");
  expect(page.body).toMatch(/id="events-some" name="events" value="some" checked/);
  expect(box(page.body, "message.delivered")).toContain("checked");
  expect(box(page.body, "message.failed")).toContain("checked");
  expect(box(page.body, "message.queued")).not.toContain("checked");

  const all = await client.post("/settings/webhook/events", { events: "all", types: ["message.sent"] }, page);
  expect(all.status).toBe(200);
  expect(all.body).toContain("Your endpoint now receives every event.");
  expect(await stored()).toBeNull();
});

it("no box ticked or an unknown type is a form error that keeps the choice; nothing changes", async () => {
  let page = await client.get("/settings/webhook");
  await client.post("/settings/webhook/events", { events: "some", types: "message.sent" }, page);
  page = await client.get("/settings/webhook");

  const none = await client.post("/settings/webhook/events", { events: "some" }, page);
  expect(none.status).toBe(400);
  expect(none.body).toContain('id="f-events-error"');
  expect(none.body).toContain("Tick at least one event");

  const forged = await client.post(
    "/settings/webhook/events",
    { events: "some", types: ["message.queued", "message.bounced"] },
    page,
  );
  expect(forged.status).toBe(400);
  expect(forged.body).toContain("Unknown event type &quot;message.bounced&quot;");
  // The refused choice is shown again, not what is stored.
  expect(box(forged.body, "message.queued")).toContain("checked");
  expect(await stored()).toEqual(["message.sent"]);
});

it("refuses the form without its CSRF token", async () => {
  const reply = await client.request("POST", "/settings/webhook/events", { events: "all" });
  expect(reply.status).toBe(403);
  expect(await stored()).toEqual(["message.sent"]);
});
