import { createDatabase, type Database } from "@sms/db";
import { createTestWorld, plannedReadsOf, type PlannedRead, type TestWorld } from "@sms/testing";
import { encodeCursor } from "../pagination";
import { searchMessages } from "./messages";
import { listOtps } from "./otps";
import { listAttempts } from "./webhook";

/*
 * A dashboard list's next page must start its index scan at the cursor: with the keyset OR alone,
 * PostgreSQL reads the account's rows from the newest down to the cursor and filters them out
 * (docs/benchmarks.md#scale). The plans are of the statements Prisma sends, on enough rows for the
 * planner to weigh the indexes.
 */

interface Statement {
  text: string;
  values: unknown[];
}

const ROWS = 30_000;
const ACCOUNTS = 20;
const msgId = (n: number) => "msg_" + String(n).padStart(26, "0");
const otpId = (n: number) => "otp_" + String(n).padStart(26, "0");

let world: TestWorld;
let db: Database;
// Row n of the seed was created ROWS - n seconds before this.
const seededAt = new Date(Date.now() - 3_600_000);
const createdAt = (n: number) => new Date(seededAt.getTime() - (ROWS - n) * 1000);

beforeAll(async () => {
  world = await createTestWorld();
  db = createDatabase(world.databaseUrl, { poolSize: 2 });
  await db.pool.query(
    `INSERT INTO accounts (id, name, updated_at)
     SELECT 'acc_' || n, 'a', now() FROM generate_series(0, $1 - 1) AS n`,
    [ACCOUNTS],
  );
  await db.pool.query(
    `WITH m AS (
       INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, created_at, updated_at)
       SELECT 'msg_' || lpad(n::text, 26, '0'), 'acc_' || (n % $2), '+1415' || lpad(n::text, 7, '0'), 'ACME', 'hi',
              'GSM7', 1, 1, 'delivered', $3::timestamptz - make_interval(secs => $1 - n), now()
       FROM generate_series(1, $1) AS n RETURNING id, account_id, to_number, created_at
     ), o AS (
       INSERT INTO otps (id, account_id, phone, code_hmac, length, status, max_attempts, message_id, expires_at, created_at)
       SELECT 'otp_' || substr(id, 5), account_id, to_number, '\\x00', 6, 'verified', 3, id, created_at, created_at FROM m
     )
     INSERT INTO webhook_attempts (event_id, account_id, attempt, url, status_code, latency_ms, started_at)
     SELECT 'evt_' || substr(id, 5), account_id, 1, 'https://hooks.example.com', 500, 10, created_at FROM m`,
    [ROWS, ACCOUNTS, seededAt],
  );
  for (const table of ["messages", "otps", "webhook_attempts"]) await db.pool.query(`ANALYZE ${table}`);
});
afterAll(async () => {
  await db.close();
  await world.destroy();
});

/** The statements on `table` that `list` makes Prisma send (Prisma queries through db.pool). */
async function statementsOn(table: string, list: () => Promise<unknown>): Promise<Statement[]> {
  const sent: Statement[] = [];
  const query = db.pool.query;
  db.pool.query = ((config: unknown, ...rest: unknown[]) => {
    const statement = config as Partial<Statement>;
    if (statement.text?.includes(`FROM "public"."${table}"`))
      sent.push({ text: statement.text, values: statement.values ?? [] });
    return (query as (...args: unknown[]) => unknown).call(db.pool, config, ...rest);
  }) as typeof query;
  try {
    await list();
  } finally {
    db.pool.query = query;
  }
  return sent;
}

/** The statement's planned reads of `table` (of its partitions holding rows: messages is partitioned by week). */
async function indexReadsOf(table: string, statement: Statement): Promise<PlannedRead[]> {
  const reads: PlannedRead[] = [];
  for (const read of await plannedReadsOf(db.pool, statement.text, statement.values))
    if (read.table === table && (await db.pool.query(`SELECT 1 FROM ${read.partition} LIMIT 1`)).rowCount)
      reads.push(read);
  return reads;
}

// A cursor deep in acc_0's rows: the row seeded 10,000th.
const DEEP = 10_000;
const page = (cursor: string) => ({ cursor, size: 25 });

it.each([
  {
    list: "messages",
    table: "messages",
    index: "messages_account_id_created_at_id_idx",
    bound: "created_at <=",
    run: () =>
      searchMessages(db.prisma, "acc_0", {}, page(encodeCursor({ at: createdAt(DEEP), id: msgId(DEEP) }))),
  },
  {
    list: "OTPs",
    table: "otps",
    index: "otps_account_id_created_at_id_idx",
    bound: "created_at <=",
    run: () => listOtps(db.prisma, "acc_0", page(encodeCursor({ at: createdAt(DEEP), id: otpId(DEEP) }))),
  },
  {
    list: "webhook attempts",
    table: "webhook_attempts",
    index: "webhook_attempts_account_id_started_at_idx",
    bound: "started_at <=",
    run: () => listAttempts(db.prisma, "acc_0", page(encodeCursor({ at: createdAt(DEEP), id: "5000" }))),
  },
])("the $list list's next page scans its index from the cursor", async ({ table, index, bound, run }) => {
  const statements = await statementsOn(table, run);
  expect(statements).toHaveLength(1);
  const reads = await indexReadsOf(table, statements[0]!);
  expect(reads.map((read) => read.via)).toEqual([index]);
  expect(reads[0]!.indexCond).toContain(bound);
});

it("walks the messages across rows sharing one created_at, every row once, newest first", async () => {
  const accountId = "acc_ties";
  const tie = new Date("2026-11-24T10:00:00.000Z");
  const at = [-1000, 0, 0, 0, 0, 0, 0, 0, 1000, 0, 1000, -1000].map((ms) => new Date(tie.getTime() + ms));
  await db.pool.query("INSERT INTO accounts (id, name, updated_at) VALUES ($1, 'ties', now())", [accountId]);
  await db.pool.query(
    `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                           status, created_at, updated_at)
     SELECT 'msg_T' || lpad(i::text, 25, '0'), $1, '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, 'delivered', at, now()
     FROM unnest($2::timestamptz[]) WITH ORDINALITY AS t(at, i)`,
    [accountId, at],
  );
  const expected = at
    .map((time, i) => ({ time: time.getTime(), id: "msg_T" + String(i + 1).padStart(25, "0") }))
    .sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : -1))
    .map((row) => row.id);

  for (const size of [1, 2, 3, 5]) {
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const result: Awaited<ReturnType<typeof searchMessages>> = await searchMessages(
        db.prisma,
        accountId,
        {},
        {
          cursor,
          size,
        },
      );
      walked.push(...result.rows.map((row) => row.id));
      cursor = result.next;
    } while (cursor && walked.length <= at.length);
    expect(walked).toEqual(expected);
  }
});
