import { startTestDashboard, Client, type TestDashboard } from "./harness";
import { seedAccount } from "./seed";

let t: TestDashboard;
afterAll(async () => {
  await t?.stop();
});

it("replaying the last days takes a failed delivery the database stamped after this process's clock", async () => {
  t = await startTestDashboard();
  const account = await t.createAccount({ senders: ["ALPHA"] });
  const seeded = await seedAccount(t.db, account.accountId, t.config.SECRET_ENCRYPTION_KEY, "a");
  // created_at is the database's time: a clock a little ahead of the dashboard's, or a
  // delivery failing in the same millisecond as the click.
  await t.db.pool.query(
    "UPDATE webhook_deliveries SET created_at = now() + interval '5 seconds' WHERE event_id = $1",
    [seeded.eventId],
  );
  const client = new Client(t.url);
  expect((await client.signIn(account)).status).toBe(303);
  const page = await client.get("/settings/webhook");
  expect((await client.post("/settings/webhook/replay", { days: "1" }, page)).status).toBeLessThan(400);
  const delivery = await t.db.prisma.webhookDelivery.findUniqueOrThrow({
    where: { eventId: seeded.eventId },
  });
  expect(delivery.status).toBe("pending");
});

it("one replay queues at most WEBHOOK_REPLAY_MAX_PER_REQUEST, oldest first, and says how many are left for the next", async () => {
  const bounded = await startTestDashboard({ WEBHOOK_REPLAY_MAX_PER_REQUEST: "2" });
  try {
    const account = await bounded.createAccount({ senders: ["ALPHA"] });
    const seeded = await seedAccount(
      bounded.db,
      account.accountId,
      bounded.config.SECRET_ENCRYPTION_KEY,
      "b",
    );
    // Four more failed deliveries, older than the seeded one.
    await bounded.db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status, attempts, created_at)
       SELECT 'evt_01ARZ3NDEKTSV4RRFFQ69G5FA' || n, $1, 'msg_01ARZ3NDEKTSV4RRFFQ69G5FA' || n, 'message.sent', '{}',
              'failed', 10, now() - (n || ' minutes')::interval
       FROM unnest(ARRAY['V', 'W', 'X', 'Y']) WITH ORDINALITY AS t(s, n)`,
      [account.accountId],
    );
    const pending = async () =>
      (
        await bounded.db.prisma.webhookDelivery.findMany({
          where: { accountId: account.accountId, status: "pending" },
          select: { eventId: true },
        })
      ).map((d) => d.eventId);
    const client = new Client(bounded.url);
    expect((await client.signIn(account)).status).toBe(303);
    const page = await client.get("/settings/webhook");

    const first = await client.post("/settings/webhook/replay", { days: "1" }, page);
    expect(first.status).toBe(200);
    expect(first.body).toContain(
      "2 failed deliveries are queued again. 3 more in that period are still failed",
    );
    expect(await pending()).toHaveLength(2);
    expect(await pending()).not.toContain(seeded.eventId);

    await client.post("/settings/webhook/replay", { days: "1" }, page);
    const last = await client.post("/settings/webhook/replay", { days: "1" }, page);
    expect(last.body).toContain("1 failed delivery is queued again.");
    expect(last.body).not.toContain("still failed");
    expect(await pending()).toHaveLength(5);
  } finally {
    await bounded.stop();
  }
});
