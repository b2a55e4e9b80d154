import { EventEmitter } from "node:events";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { exportRangeProblem, writeMessageExport, type ExportSink } from "./index";

/** A sink that keeps what it is given and, when `full`, refuses more until drain() is called. */
class SlowSink extends EventEmitter implements ExportSink {
  chunks: string[] = [];
  destroyed = false;
  full = false;
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return !this.full;
  }
  drain(): void {
    this.emit("drain");
  }
  get text(): string {
    return this.chunks.join("");
  }
}

describe("writeMessageExport (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 3 });
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  async function insertAccount(): Promise<string> {
    const id = newId("acc");
    await db.pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'T', 0, now())", [
      id,
    ]);
    return id;
  }

  /** `count` messages one second apart from `first`. */
  async function insertMessages(
    accountId: string,
    first: Date,
    count: number,
    body = "hello",
  ): Promise<void> {
    await db.pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, created_at, updated_at)
       SELECT $2 || lpad(n::text, 6, '0'), $1, '+14155550100', 'ACME', $5, 'GSM7', 1, 1, 'queued',
              $3::timestamptz + make_interval(secs => n), now()
       FROM generate_series(0, $4 - 1) AS n`,
      [accountId, `msg_${accountId.slice(-8)}_`, first, count, body],
    );
  }

  it("writes the header, then every row of the range oldest first in pages, and nothing of another account", async () => {
    const accountId = await insertAccount();
    const other = await insertAccount();
    const since = new Date("2026-11-01T00:00:00.000Z");
    await insertMessages(accountId, new Date(since.getTime() - 2000), 7);
    await insertMessages(other, since, 3);
    const sink = new SlowSink();
    const until = new Date(since.getTime() + 4000);
    expect(await writeMessageExport(db.pool, accountId, { since, until }, sink, { pageSize: 2 })).toBe(4);
    const lines = sink.text.split("\r\n");
    expect(lines[0]).toBe(
      "id,created_at,to,sender_id,status,segments,credits,error_code,client_ref,batch_id,sent_at,delivered_at,failed_at,body",
    );
    // since is in the range, until is not.
    expect(lines.slice(1, -1).map((line) => line.split(",")[1])).toEqual([
      "2026-11-01T00:00:00.000Z",
      "2026-11-01T00:00:01.000Z",
      "2026-11-01T00:00:02.000Z",
      "2026-11-01T00:00:03.000Z",
    ]);
    expect(lines.at(-1)).toBe("");
    expect(sink.text).not.toContain(other.slice(-8));
  });

  it("reads the next page only after the sink has drained, and stops when the sink goes away", async () => {
    const accountId = await insertAccount();
    const since = new Date("2026-11-02T00:00:00.000Z");
    await insertMessages(accountId, since, 10, "=cmd|' /C calc'!A0");
    const sink = new SlowSink();
    sink.full = true;
    const range = { since, until: new Date(since.getTime() + 3600_000) };
    const done = writeMessageExport(db.pool, accountId, range, sink, { pageSize: 3 });
    // The header waits for a drain: nothing is read meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.chunks).toHaveLength(1);
    sink.drain();
    await waitForChunks(sink, 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.chunks).toHaveLength(2);
    expect(sink.chunks[1]!.split("\r\n")).toHaveLength(4);
    // Formula-looking text is made inert.
    expect(sink.chunks[1]).toContain(",'=cmd|' /C calc'!A0\r\n");
    sink.destroyed = true;
    sink.emit("close");
    expect(await done).toBe(3);
  });

  it("refuses an empty, reversed or longer than 31-day range", () => {
    const since = new Date("2026-11-01T00:00:00Z");
    expect(exportRangeProblem({ since, until: since })).toMatch(/later/);
    expect(exportRangeProblem({ since, until: new Date(since.getTime() - 1) })).toMatch(/later/);
    expect(exportRangeProblem({ since, until: new Date(since.getTime() + 31 * 86_400_000) })).toBeNull();
    expect(exportRangeProblem({ since, until: new Date(since.getTime() + 31 * 86_400_000 + 1) })).toMatch(
      /31 days/,
    );
  });
});

async function waitForChunks(sink: { chunks: string[] }, count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (sink.chunks.length < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} chunks written`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
