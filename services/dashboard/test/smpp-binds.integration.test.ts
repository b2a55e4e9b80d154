import { hashPassword } from "@sms/auth";
import { createRedis, type Redis } from "@sms/redis";
import { BindLeases } from "@sms/smpp-server";
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

it("pages the sender ids alphabetically, 25 at a time", async () => {
  const senders = Array.from({ length: 30 }, (_, i) => `S${String(i).padStart(2, "0")}X`);
  const acme = await t.createAccount({ senders });
  const client = new Client(t.url);
  await client.signIn(acme);
  const first = await client.get("/settings/smpp");
  const shown = (body: string) => [...body.matchAll(/<code>(S\d\dX)<\/code>/g)].map((m) => m[1]);
  expect(shown(first.body)).toEqual(senders.slice(0, 25));
  const next = /href="(\/settings\/smpp\?after=[^"]+)"/.exec(first.body)?.[1];
  expect(next).toBe("/settings/smpp?after=S24X");
  const second = await client.get(next!);
  expect(shown(second.body)).toEqual(senders.slice(25));
  expect(second.body).not.toContain("?after=");
});

it("shows the destination countries the account may send to", async () => {
  const acme = await t.createAccount();
  const client = new Client(t.url);
  await client.signIn(acme);
  expect((await client.get("/settings/smpp")).body).toContain("may go to every country");
  await t.db.pool.query("UPDATE accounts SET allowed_countries = '{GB,IE}' WHERE id = $1", [acme.accountId]);
  expect((await client.get("/settings/smpp")).body).toMatch(
    /may go to\s+United Kingdom \(GB\), Ireland \(IE\) only/,
  );
});
