import { hashPassword } from "@sms/auth";
import { createRedis, type Redis } from "@sms/redis";
import { BindLeases } from "../../smpp-server/src/bind-leases";
import { countOpenBinds } from "../src/data/smpp";
import { Client, startTestDashboard, type TestDashboard } from "./harness";

// The dashboard reads the smpp-server's bind leases from Redis: this holds leases with the
// server's own BindLeases and checks the count the page shows.
let t: TestDashboard;
let redis: Redis;
let leases: BindLeases;

beforeAll(async () => {
  t = await startTestDashboard();
  redis = createRedis(t.world.redisUrl, "command");
  leases = new BindLeases(redis, t.world.redisPrefix, 60_000);
});
afterAll(async () => {
  leases?.stop();
  redis?.disconnect();
  await t?.stop();
});

it("counts the binds the smpp-server holds for the account, across replicas, and shows them", async () => {
  const acme = await t.createAccount();
  const other = await t.createAccount();
  await t.db.prisma.smppCredential.create({
    data: {
      systemId: "acme01",
      accountId: acme.accountId,
      passwordHash: await hashPassword("pw"),
      maxBinds: 4,
    },
  });
  const first = await leases.acquire(acme.accountId, 4);
  const second = await leases.acquire(acme.accountId, 4);
  await leases.acquire(other.accountId, 4);
  expect(await countOpenBinds(redis, t.world.redisPrefix, acme.accountId)).toBe(2);

  const client = new Client(t.url);
  await client.signIn(acme);
  const page = await client.get("/settings/smpp");
  expect(page.body).toMatch(/Open binds now<\/dt>\s*<dd>\s*2 of 4/);

  await leases.release(acme.accountId, first!);
  await leases.release(acme.accountId, second!);
  expect(await countOpenBinds(redis, t.world.redisPrefix, acme.accountId)).toBe(0);
});
