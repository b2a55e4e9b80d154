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
