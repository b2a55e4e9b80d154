import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { createMessageExports, type MessageExports } from "./index";

const range = { since: new Date("2026-12-01T00:00:00.000Z"), until: new Date("2026-12-02T00:00:00.000Z") };

/** A plain node:http server answering GET /<account id> with `exports`, or 429 when it refuses. */
async function serve(exports: MessageExports): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void exports.send(req.url!.slice(1), range, res).then((sent) => {
      if (!sent) res.writeHead(429).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe("createMessageExports (real HTTP and PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 4 });
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  async function insertAccountWithMessages(count: number): Promise<string> {
    const id = newId("acc");
    await db.pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'T', 0, now())", [
      id,
    ]);
    await db.pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, created_at, updated_at)
       SELECT $2 || lpad(n::text, 6, '0'), $1, '+14155550100', 'ACME', 'hello', 'GSM7', 1, 1, 'queued',
              $3::timestamptz + make_interval(secs => n), now()
       FROM generate_series(1, $4) AS n`,
      [id, `msg_${id.slice(-8)}_`, range.since, count],
    );
    return id;
  }

  /** Holds every read of messages until the returned function is called. */
  async function lockMessages(): Promise<() => Promise<void>> {
    const locker = await db.pool.connect();
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE messages IN ACCESS EXCLUSIVE MODE");
    return async () => {
      await locker.query("ROLLBACK");
      locker.release();
    };
  }

  it("holds an account's slot while its export runs, refuses it one more, and frees it when the client hangs up", async () => {
    const alice = await insertAccountWithMessages(3);
    const bob = await insertAccountWithMessages(2);
    const server = await serve(createMessageExports(db.pool, { perAccount: 1 }));
    try {
      // The header row goes out, then the first page waits on the lock: the export is running.
      const unlock = await lockMessages();
      const hangUp = new AbortController();
      const running = await fetch(`${server.url}/${alice}`, { signal: hangUp.signal });
      expect(running.status).toBe(200);
      expect(running.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(running.headers.get("content-disposition")).toBe(
        'attachment; filename="messages_20261201T000000Z_20261202T000000Z.csv"',
      );
      expect(running.headers.get("cache-control")).toBe("no-store");
      expect((await fetch(`${server.url}/${alice}`)).status).toBe(429);
      const other = await fetch(`${server.url}/${bob}`);
      expect(other.status).toBe(200);
      hangUp.abort();
      await unlock();
      expect((await other.text()).split("\r\n")).toHaveLength(4);
      const again = await waitFor(
        async () => {
          const response = await fetch(`${server.url}/${alice}`);
          const text = await response.text();
          return response.status === 200 ? text : null;
        },
        { what: "the hung-up export to free its slot" },
      );
      expect(again.split("\r\n")).toHaveLength(5);
    } finally {
      await server.close();
    }
  });

  it("cuts the download short on a database error after the header row, and frees the slot", async () => {
    const alice = await insertAccountWithMessages(3);
    // A real PostgreSQL error: the first page waits on a lock longer than this pool allows.
    const impatient = new pg.Pool({
      connectionString: world.databaseUrl,
      max: 2,
      options: "-c lock_timeout=200",
    });
    impatient.on("error", () => undefined);
    const cutShort: Array<[string, string]> = [];
    const server = await serve(
      createMessageExports(impatient, {
        perAccount: 1,
        logger: { warn: (_message, meta) => cutShort.push([String(meta.account_id), String(meta.error)]) },
      }),
    );
    try {
      const unlock = await lockMessages();
      const failed = await fetch(`${server.url}/${alice}`);
      expect(failed.status).toBe(200);
      // No final chunk: the client sees an incomplete body, not a complete short file.
      await expect(failed.text()).rejects.toThrow();
      // The operator is told, with the account and PostgreSQL's own words.
      expect(cutShort).toEqual([[alice, expect.stringMatching(/lock timeout/)]]);
      await unlock();
      const again = await fetch(`${server.url}/${alice}`);
      expect(again.status).toBe(200);
      expect((await again.text()).split("\r\n")).toHaveLength(5);
    } finally {
      await server.close();
      await impatient.end();
    }
  });
});
