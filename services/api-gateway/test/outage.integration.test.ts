import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { pendingDispatchJobsOf } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { freePort, isListening, waitFor, type TestWorld } from "@sms/testing";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

/**
 * docs/README.md#nothing-accepted-is-lost and docs/api.md#errors: with PostgreSQL or Redis unreachable the gateway answers 503
 * SERVICE_UNAVAILABLE (with Retry-After) quickly and accepts nothing; when they come
 * back it recovers by itself; and a message accepted just before Redis dies is not lost.
 *
 * The shared servers on 5432/6379 are never touched: this file starts its own
 * PostgreSQL cluster and Redis on free ports, stops and restarts them, and removes them.
 */

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../../..");
const VALID = { to: "+14155550100", message: "Outage test", sender_id: "ACME" };
const ITEM = { to: "+14155550100", message: "Outage test" };
type Response = Awaited<ReturnType<TestGateway["request"]>>;

/** A private PostgreSQL cluster in a temp dir, run as the postgres OS user when we are root. */
class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  static async create(): Promise<PrivatePostgres> {
    const versions = fs
      .readdirSync("/usr/lib/postgresql")
      .filter((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/pg_ctl`));
    const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
    if (!newest) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql/*/bin");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sms-outage-pg-"));
    const server = new PrivatePostgres(dir, await freePort(), `/usr/lib/postgresql/${newest}/bin`);
    if (process.getuid?.() === 0) {
      const { stdout } = await run("id", ["-u", "postgres"]);
      const { stdout: gid } = await run("id", ["-g", "postgres"]);
      fs.chownSync(dir, Number(stdout), Number(gid));
    }
    await server.as("initdb", [
      "-D",
      server.data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "--no-sync",
      "-E",
      "UTF8",
      "--locale=C",
    ]);
    return server;
  }

  get data(): string {
    return path.join(this.dir, "data");
  }

  url(database = "sms"): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c shared_buffers=16MB`;
    await this.as("pg_ctl", [
      "-D",
      this.data,
      "-l",
      path.join(this.dir, "log"),
      "-o",
      options,
      "-w",
      "-t",
      "60",
      "start",
    ]);
  }

  /** An immediate stop: like a crash, the server drops every connection at once. */
  async stop(): Promise<void> {
    await this.as("pg_ctl", ["-D", this.data, "-m", "immediate", "-w", "stop"]);
  }

  async isRunning(): Promise<boolean> {
    return this.as("pg_ctl", ["-D", this.data, "status"]).then(
      () => true,
      () => false,
    );
  }

  async destroy(): Promise<void> {
    if (fs.existsSync(path.join(this.data, "postmaster.pid"))) await this.stop().catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** For process exit: synchronous, best effort. */
  stopNow(): void {
    if (!fs.existsSync(path.join(this.data, "postmaster.pid"))) return;
    const [file, argv] = this.command("pg_ctl", ["-D", this.data, "-m", "immediate", "-w", "stop"]);
    try {
      execFileSync(file, argv, { stdio: "ignore", timeout: 30_000 });
    } catch {
      /* already stopped */
    }
  }

  private as(tool: string, args: string[]) {
    const [file, argv] = this.command(tool, args);
    // -l sends the server's output to its log, so pg_ctl's pipes close when pg_ctl exits.
    return run(file, argv, { cwd: this.dir, timeout: 90_000 });
  }

  private command(tool: string, args: string[]): [string, string[]] {
    const binary = path.join(this.bin, tool);
    return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
  }
}

/** A private Redis without persistence: a restart comes back empty, like a lost cache node. */
class PrivateRedis {
  private child: ChildProcess | undefined;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get isRunning(): boolean {
    return this.child !== undefined;
  }

  async start(): Promise<void> {
    const child = spawn(
      "redis-server",
      ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    this.child = child;
    child.once("exit", () => {
      if (this.child === child) this.child = undefined;
    });
    await waitFor(() => isListening("127.0.0.1", this.port), {
      timeoutMs: 10_000,
      what: `redis-server on ${this.port}`,
    });
  }

  /** SIGKILL: the process is gone at once, as in a crash; its clients see their connections drop. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    this.child = undefined;
  }

  /** For process exit: synchronous. */
  killNow(): void {
    this.child?.kill("SIGKILL");
  }
}

describe("the gateway during PostgreSQL and Redis outages (private servers)", () => {
  let postgres: PrivatePostgres | undefined;
  let redis: PrivateRedis | undefined;
  let gw: TestGateway | undefined;
  let cachedGw: TestGateway | undefined;
  let account: TestAccount;
  // If the test process dies without afterAll, the servers still go.
  const stopServersOnExit = () => {
    redis?.killNow();
    postgres?.stopNow();
  };

  beforeAll(async () => {
    process.once("exit", stopServersOnExit);
    redis = new PrivateRedis(await freePort());
    await redis.start();
    postgres = await PrivatePostgres.create();
    await postgres.start();
    await run("bash", ["scripts/migrate.sh"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: postgres.url() },
      timeout: 120_000,
    });
    const world: TestWorld = {
      databaseUrl: postgres.url(),
      redisUrl: redis.url,
      redisPrefix: "outage",
      env: { DATABASE_URL: postgres.url(), REDIS_URL: redis.url, REDIS_PREFIX: "outage", LOG_LEVEL: "error" },
      pool: () => {
        throw new Error("the outage test's world opens no pools: its PostgreSQL is stopped under it");
      },
      destroy: async () => undefined,
    };
    // The dispatch-outbox relay keeps its default interval: each run holds a pooled PostgreSQL client
    // for a moment, and a client checked out when PostgreSQL dies crashes the process (see the report).
    gw = await startTestGateway({}, world);
    // A second gateway that caches API keys, so a PostgreSQL outage is also met past authentication.
    cachedGw = await startTestGateway({ AUTH_CACHE_SECONDS: "300" }, world);
    account = await gw.createAccount({ credits: 1000 });
    // Warm both gateways up (the first Prisma query can take seconds on a busy machine), so that
    // the timings measured below are the outages', and so that setup works at all.
    for (const gateway of [gw, cachedGw]) expect((await send(gateway)).status).toBe(202);
  }, 180_000);

  // Each test starts with both servers up and both gateways ready, even after a failed test.
  beforeEach(async () => {
    if (redis && !redis.isRunning) await redis.start();
    if (postgres && !(await postgres.isRunning())) await postgres.start();
    await waitForReady(gw!);
    await waitForReady(cachedGw!);
  }, 90_000);

  afterAll(async () => {
    // Gateways first, while their servers answer (stop() waits for in-flight hand-offs).
    if (redis && !redis.isRunning) await redis.start().catch(() => undefined);
    if (postgres && !(await postgres.isRunning())) await postgres.start().catch(() => undefined);
    for (const gateway of [gw, cachedGw]) await gateway?.stop().catch(() => undefined);
    await redis?.stop();
    await postgres?.destroy();
    process.removeListener("exit", stopServersOnExit);
  }, 90_000);

  const send = (gateway: TestGateway) =>
    gateway.request("POST", "/v1/sms/send", { key: account.key, body: VALID });
  const sendBulk = (gateway: TestGateway) =>
    gateway.request("POST", "/v1/sms/bulk", {
      key: account.key,
      body: { sender_id: "ACME", messages: [ITEM, ITEM] },
    });
  const countMessages = () => gw!.db.prisma.message.count({ where: { accountId: account.accountId } });

  async function readinessOf(gateway: TestGateway) {
    const answer = await fetch(`${gateway.healthUrl}/readyz`);
    return { status: answer.status, body: (await answer.json()) as { checks: Record<string, string> } };
  }

  /** /readyz answers 200 once the gateway's connections are back: no fixed sleep. */
  function waitForReady(gateway: TestGateway) {
    return waitFor(async () => (await fetch(`${gateway.healthUrl}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: "the gateway ready again",
    });
  }

  async function expectQuick503(request: () => Promise<Response>) {
    const started = Date.now();
    const response = await request();
    const elapsedMs = Date.now() - started;
    expectError(response, 503, "SERVICE_UNAVAILABLE");
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Redis commands give up within 1.5 s and PostgreSQL connects within 2 s (deps.ts); room for a busy machine.
    expect(elapsedMs).toBeLessThan(4000);
  }

  it("answers 503 within seconds while Redis is down, accepts nothing, and recovers by itself when Redis returns", async () => {
    const before = await countMessages();

    await redis!.stop();
    await expectQuick503(() => send(gw!));
    const readiness = await readinessOf(gw!);
    expect(readiness.status).toBe(503);
    expect(readiness.body.checks).toMatchObject({ postgres: "ok", redis: expect.stringMatching(/^failing/) });
    expect(await countMessages()).toBe(before);

    await redis!.start();
    await waitForReady(gw!);
    expect((await send(gw!)).status).toBe(202);
    expect((await sendBulk(gw!)).status).toBe(202);
    expect(await countMessages()).toBe(before + 3);
  });

  // Regression: while ioredis waits between reconnect attempts (up to 3 s, packages/redis), a
  // command fails with "Command timed out" after 1.5 s; that too must answer 503, never 500.
  it("keeps answering 503, never 500, through a Redis outage of several seconds", async () => {
    await redis!.stop();
    const statuses: number[] = [];
    const until = Date.now() + 8000; // an observation window, long enough to span several reconnect attempts
    while (Date.now() < until) {
      const response = await (statuses.length % 2 ? sendBulk(gw!) : send(gw!));
      statuses.push(response.status);
      if (response.status !== 503) break;
    }
    expect(statuses.filter((status) => status !== 503)).toEqual([]);
  });

  it("answers 503 (not 401 or 500) while PostgreSQL is down, with or without cached keys, and recovers by itself", async () => {
    // Warm the second gateway's key cache, so its requests get past authentication to the acceptance.
    expect((await cachedGw!.request("GET", "/v1/account", { key: account.key })).status).toBe(200);
    const before = await countMessages();

    await postgres!.stop();
    await expectQuick503(() => send(gw!)); // authentication itself can't read the key
    await expectQuick503(() => send(cachedGw!)); // authenticated from the cache; the commit can't start
    await expectQuick503(() => sendBulk(cachedGw!));
    await expectQuick503(() => cachedGw!.request("GET", "/v1/account", { key: account.key }));
    const readiness = await readinessOf(gw!);
    expect(readiness.status).toBe(503);
    expect(readiness.body.checks).toMatchObject({ postgres: expect.stringMatching(/^failing/), redis: "ok" });

    await postgres!.start();
    expect(await countMessages()).toBe(before);
    for (const gateway of [gw!, cachedGw!]) {
      await waitForReady(gateway);
      expect((await send(gateway)).status).toBe(202);
    }
    expect(await countMessages()).toBe(before + 2);
  });

  it("keeps a message committed just before Redis died in the dispatch outbox, and enqueues it once Redis returns", async () => {
    // Deterministic timing: hold the account's balance row, so the request passes the rate limit
    // (Redis), then waits inside the acceptance transaction; kill Redis; then release the row.
    const locker = new pg.Client({ connectionString: postgres!.url() });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", [account.accountId]);
      const pending = send(gw!);
      let early: Response | undefined;
      void pending.then((answer) => (early = answer));
      // A session waiting for a row of accounts in this database: the first waiter holds the row's
      // tuple lock while its NOT granted lock is on our transaction id (no database there), later
      // ones wait on the tuple lock itself. pg_locks is server-wide, hence the database.
      await waitFor(
        async () => {
          // An answer before the wait would mean the acceptance never reached the row: say what it was.
          if (early) throw new Error(`answered ${early.status} ${JSON.stringify(early.body)} instead`);
          const { rows } = await locker.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_locks waiting
             JOIN pg_locks row_lock ON row_lock.pid = waiting.pid
             WHERE NOT waiting.granted AND row_lock.locktype = 'tuple'
               AND row_lock.relation = 'accounts'::regclass
               AND row_lock.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          );
          return rows[0]!.waiting > 0;
        },
        { timeoutMs: 20_000, what: "the acceptance waiting for the balance row" },
      );
      await redis!.stop();
      await locker.query("COMMIT");
      const response = await pending;
      expect(response.status).toBe(202);
      const id = response.body.message_id as string;
      expect(await gw!.db.prisma.message.findUniqueOrThrow({ where: { id } })).toMatchObject({
        status: "queued",
      });
      // Redis is down, so the hand-off can't have happened: the outbox still holds the message.
      expect(await gw!.db.prisma.dispatchOutbox.count({ where: { messageId: id } })).toBe(1);

      await redis!.start(); // empty: nothing of the old Redis survived
      const connection = createRedis(redis!.url, "queue");
      try {
        const [held] = await waitFor(
          async () => {
            const jobs = await pendingDispatchJobsOf({ connection, prefix: "outage" }, id);
            return jobs.length > 0 ? jobs : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 100, what: "the dispatch job in the restarted Redis" },
        );
        expect(held!.job.data.messageIds).toEqual([id]);
        await waitFor(
          async () => (await gw!.db.prisma.dispatchOutbox.count({ where: { messageId: id } })) === 0,
          { timeoutMs: 20_000, what: "the outbox row removed" },
        );
      } finally {
        connection.disconnect();
      }
    } finally {
      await locker.end();
    }
  });
});
