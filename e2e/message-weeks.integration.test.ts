import crypto from "node:crypto";
import pg from "pg";
import { partitionName, type PartitionedTable } from "@sms/db";
import { loadDlrIngestConfig, startDlrIngest, type RunningDlrIngest } from "@sms/dlr-ingest";
import { encodeUlid, idTime } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { waitFor, partitionedSince } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "@sms/dispatcher/test/harness";

/*
 * The message tables are partitioned by the week of the message id, the time a message is due
 * (docs/decisions.md#partitions). The sending path (acceptance, the dispatcher's reads and
 * marks, the submit records, dlr-ingest's receipts, the status changes and their count deltas)
 * must read only the weeks of the messages it handles: here a full week three weeks back and a
 * week of messages scheduled ten weeks ahead must see no scan at all while messages of this
 * week go from acceptance to delivered. And the weeks a cached plan was made for must not
 * matter: this week fills up between two rounds, with no new statistics, and is still read by
 * its indexes only.
 */
const TABLES: PartitionedTable[] = ["messages", "message_events", "message_segments"];
const WEEK = 7 * 86_400_000;
const PAST_ROWS = 20_000;
const FILL_ROWS = 30_000;

let w: DispatchWorld;
let dlr: RunningDlrIngest;
let stats: pg.Pool;
const now = Date.now();
const weekOf = (offset: number) => TABLES.map((table) => partitionName(table, new Date(now + offset * WEEK)));

/** Ids of messages due at `at` (as newMessageId makes them for a scheduled message). */
const idsAt = (at: number, count: number) =>
  Array.from({ length: count }, (_, i) => `msg_${encodeUlid(at + i, crypto.randomBytes(10))}`);

async function insertMessages(ids: string[], status: string, createdAt: Date, segments: boolean) {
  await stats.query(
    `WITH m AS (
       INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, scheduled_at, created_at, updated_at)
       SELECT id, $2, '+14155550100', 'ACME', 'seed', 'GSM7', 1, 1, $3::"MessageStatus",
              CASE WHEN $3 = 'scheduled' THEN $4::timestamptz + interval '10 weeks' END, $4, $4
       FROM unnest($1::text[]) AS id RETURNING id
     ), e AS (
       INSERT INTO message_events (message_id, sequence, status, occurred_at) SELECT id, 1, $3::"MessageStatus", $4 FROM m
     )
     INSERT INTO message_segments (message_id, seq, status, carrier_id, carrier_message_id, submitted_at)
     SELECT id, 1, 'delivered', 'sim', 'seed-' || id, $4 FROM m WHERE $5`,
    [ids, w.accountId, status, createdAt, segments],
  );
}

/** Sequential and index scans of every partition of the three tables, as PostgreSQL counted them. */
async function scans(): Promise<Map<string, number>> {
  await stats.query("SELECT pg_stat_force_next_flush()");
  const { rows } = await stats.query<{ relname: string; scans: string }>(
    `SELECT relname, seq_scan + COALESCE(idx_scan, 0) AS scans FROM pg_stat_user_tables
     WHERE relid IN (SELECT relid FROM pg_partition_tree('messages') UNION ALL
                     SELECT relid FROM pg_partition_tree('message_events') UNION ALL
                     SELECT relid FROM pg_partition_tree('message_segments'))`,
  );
  return new Map(rows.map((row) => [row.relname, Number(row.scans)]));
}

async function seqScans(partitions: string[]): Promise<number> {
  await stats.query("SELECT pg_stat_force_next_flush()");
  const { rows } = await stats.query<{ n: string }>(
    "SELECT sum(seq_scan) AS n FROM pg_stat_user_tables WHERE relname = ANY($1)",
    [partitions],
  );
  return Number(rows[0]!.n);
}

/**
 * Ends every connection of the path to the database (its pools open new ones when next used):
 * a backend reports its scan counters as it exits, so they can be read now rather than when it
 * next goes idle for ten seconds. Waits for those backends to be gone, not for none to be left:
 * a loop of the path (the dispatcher's carrier refresh) may open a new one meanwhile.
 */
async function closePathConnections() {
  // Chosen first, ended after: in one statement PostgreSQL may call pg_terminate_backend before
  // it filters the rows, on any backend of the server.
  const { rows } = await stats.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
       AND backend_type = 'client backend'`,
  );
  const ended = rows.map((row) => row.pid);
  await stats.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [ended]);
  await waitFor(
    async () =>
      (
        await stats.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])",
          [ended],
        )
      ).rows[0]!.n === 0,
    { what: "the path's connections closed" },
  );
}

async function sendAndDeliver(count: number) {
  const sent = [];
  for (let i = 0; i < count; i++)
    sent.push(await w.send(`+447705${String(i).padStart(3, "0")}234`, `week ${i}`));
  for (const message of sent) await w.waitForStatus(message.id, ["delivered"], 30_000);
  return sent;
}

beforeAll(async () => {
  w = await startDispatchWorld({ simulatorSettings: { settings: { receiptDelayMs: 5 } } });
  dlr = await startDlrIngest(
    loadDlrIngestConfig({ ...w.world.env, PORT: "0", HOST: "127.0.0.1", CARRIER_REFRESH_MS: "200" }),
    createLogger("dlr-ingest-test", "error"),
  );
  await waitFor(() => w.simulator.stats().binds.some((b) => b.state === "bound_rx"), {
    what: "dlr-ingest's receiver bind",
  });
  // One connection of the test's own sets up and reads the counters: its own scans are reported
  // when it asks (pg_stat_force_next_flush), those of the path's connections as they close.
  stats = w.world.pool(1);
  // A fresh database's first partition runs to next week: give every week around now its own.
  await partitionedSince(stats, TABLES, new Date(now - 5 * WEEK), new Date(now + 27 * WEEK));
  await insertMessages(idsAt(now - 3 * WEEK, PAST_ROWS), "delivered", new Date(now - 3 * WEEK), true);
  await insertMessages(idsAt(now + 10 * WEEK, 2_000), "scheduled", new Date(now - 60_000), false);
  for (const table of TABLES) await stats.query(`ANALYZE ${table}`);
}, 120_000);

afterAll(async () => {
  await dlr?.stop();
  await w?.stop();
});

it("keeps a message scheduled ahead in the week it is due, with its history", async () => {
  const due = new Date(now + 10 * WEEK + 3_600_000);
  const message = await w.acceptance.acceptor.acceptOne(
    { id: w.accountId, senderIds: new Set(["ACME"]) },
    { to: "+447705000234", message: "later", senderId: "ACME", scheduledAt: due.toISOString() },
  );
  expect(idTime(message.id)).toBe(due.getTime());
  const { rows } = await stats.query<{ partition: string }>(
    `SELECT tableoid::regclass::text AS partition FROM messages WHERE id = $1
     UNION ALL SELECT tableoid::regclass::text FROM message_events WHERE message_id = $1`,
    [message.id],
  );
  expect(rows.map((row) => row.partition)).toEqual([
    partitionName("messages", due),
    partitionName("message_events", due),
  ]);
  // Its counters, reported now, are not taken for the next test's.
  await closePathConnections();
});

it("takes messages of this week from acceptance to delivered reading no other week, however full this week gets", async () => {
  const thisWeek = weekOf(0);
  const untouched = [...weekOf(-3), ...weekOf(10)];
  const before = await scans();

  // Round one runs on a week with few rows; then the week fills up with no new statistics
  // (autovacuum off, as after a burst before it comes by), and round two runs on it.
  const first = await sendAndDeliver(30);
  await closePathConnections();
  await insertMessages(idsAt(now - FILL_ROWS - 1000, FILL_ROWS), "delivered", new Date(now), true);
  const seqBefore = await seqScans(thisWeek);
  const second = await sendAndDeliver(60);
  const sent = [...first, ...second].map((message) => message.id);
  const { rows: homes } = await stats.query<{ partition: string }>(
    "SELECT DISTINCT tableoid::regclass::text AS partition FROM messages WHERE id = ANY($1)",
    [sent],
  );

  await dlr.stop();
  await w.dispatcher.stop();
  await w.acceptance.close();
  await w.db.close();
  await closePathConnections();
  const after = await scans();

  // Each message sits in the week it was due: this one (or the next, for a run across Monday 00:00 UTC).
  expect(
    homes.map((row) => row.partition).every((name) => name >= thisWeek[0]! && name <= weekOf(1)[0]!),
  ).toBe(true);
  const touched = [...after].filter(([name, n]) => n > (before.get(name) ?? 0)).map(([name]) => name);
  expect(touched.filter((name) => untouched.includes(name))).toEqual([]);
  // This week's messages and segments were read (history is only written), by index only once full.
  expect(touched).toEqual(expect.arrayContaining([thisWeek[0], thisWeek[2]]));
  expect((await seqScans(thisWeek)) - seqBefore).toBe(0);
}, 120_000);
