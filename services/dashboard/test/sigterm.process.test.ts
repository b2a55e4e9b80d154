import pg from "pg";
import { hashPassword } from "@sms/auth";
import { createDatabase, type Database } from "@sms/db";
import { newId, ulid } from "@sms/ids";
import {
  createTestWorld,
  freePort,
  startServiceProcess,
  terminate,
  waitFor,
  type ServiceProcess,
  type TestWorld,
} from "@sms/testing";
import { Client, csrfOf } from "./harness";

// The built bundle under SIGTERM, as an orchestrator stops it: a request already being handled
// is answered, then the process exits 0. The request is held in flight deterministically: the
// test holds the advisory lock that sign-in takes for the address.
let world: TestWorld;
let db: Database;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  world = await createTestWorld();
  db = createDatabase(world.databaseUrl, { poolSize: 2 });
});
afterAll(async () => {
  service?.kill();
  await db?.close();
  await world?.destroy();
});

it("answers the sign-in in flight at SIGTERM, then exits 0 and stops listening", async () => {
  const email = `${ulid().toLowerCase()}@example.com`;
  await db.prisma.account.create({
    data: {
      id: newId("acc"),
      name: "Acme",
      dashboardUsers: {
        create: { id: `usr_${ulid()}`, email, passwordHash: await hashPassword("the right password") },
      },
    },
  });
  const port = await freePort();
  const healthPort = await freePort();
  service = startServiceProcess("dashboard", {
    ...world.env,
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
    HOST: "127.0.0.1",
    DASHBOARD_SECURE_COOKIES: "false",
  });
  await service.waitReady(healthPort);

  const client = new Client(`http://127.0.0.1:${port}`);
  const page = await client.get("/sign-in");
  const holder = new pg.Client({ connectionString: world.databaseUrl });
  await holder.connect();
  try {
    await holder.query("SELECT pg_advisory_lock(hashtext($1))", [`dashboard-sign-in:${email}`]);
    const signIn = client.request("POST", "/sign-in", {
      _csrf: csrfOf(page.body),
      email,
      password: "the right password",
    });
    await waitFor(
      async () => {
        const { rows } = await holder.query(
          // This database's waiters only: pg_locks is server-wide, and other suites wait on advisory locks too.
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        return rows[0].n > 0 || undefined;
      },
      { what: "the sign-in waiting on the address's lock" },
    );
    const termination = terminate(service, healthPort);
    // The stop has begun (not ready, or the health port already closed) while the sign-in still waits.
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${healthPort}/readyz`).then(
          (answer) => answer.status === 503 || undefined,
          () => true,
        ),
      { what: "the dashboard no longer ready after SIGTERM" },
    );
    await holder.query("SELECT pg_advisory_unlock(hashtext($1))", [`dashboard-sign-in:${email}`]);
    const reply = await signIn;
    expect(reply.status).toBe(303);
    expect(reply.location).toBe("/");
    const ended = await termination;
    expect(ended.code).toBe(0);
    expect(ended.elapsedMs).toBeLessThan(10_000);
    expect(
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
  } finally {
    await holder.end();
  }
});
