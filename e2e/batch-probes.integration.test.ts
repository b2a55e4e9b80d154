import crypto from "node:crypto";
import pg from "pg";
import { applyReceipts, receiptKeyForSubmit } from "@sms/carrier-receipts";
import { loadMessages, recordSubmitted } from "@sms/dispatcher";
import { encodeUlid } from "@sms/ids";
import {
  createTestWorld,
  plannedReadsOf,
  recordQueries,
  seedSendingAccount,
  seedSimulatorCarrier,
  type PlannedRead,
  type TestWorld,
} from "@sms/testing";

/*
 * A batch's statements join their rows to a message table by id, and name the ids' weeks by the
 * smallest and the largest of them, never by `= ANY(the batch's ids)` beside the join: there the
 * planner took the list as each probe's index condition and sorted all of it again for every
 * row, so a batch of n messages cost n² comparisons (docs/decisions.md#partitions). Here the
 * sending path's batch steps run for real on batches of 200 messages spread over a week of
 * 30,000 (the dispatcher's load and submit record, dlr-ingest's receipts, and the status changes
 * both make), and the plan of every statement they sent, made for the values they carried, must
 * hold no such probe. Once before the week has statistics (a new week, autovacuum behind: the
 * plans the list made quadratic) and once after ANALYZE.
 */
const FILLER = 30_000;
const BATCH = 200;
const MESSAGE_TABLES = ["messages", "message_segments", "message_events"];

let world: TestWorld;
let pool: pg.Pool;
/** Two batches of queued messages with a pending segment each, spread over the week's messages. */
let batches: string[][];

const idsAt = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `msg_${encodeUlid(from + i, crypto.randomBytes(10))}`);

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(4);
  await seedSendingAccount(pool, { id: "acc_probe", name: "probe" });
  await seedSimulatorCarrier(pool, { port: 2775 });
  // Spread, as other accounts' sends interleave with a batch's.
  const ids = idsAt(Date.now() - 3_600_000, FILLER + 2 * BATCH);
  const step = (FILLER + 2 * BATCH) / BATCH;
  batches = [0, 1].map((k) => ids.filter((_, i) => i % step === k));
  const queued = batches.flat();
  await pool.query(
    `WITH m AS (
       INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, created_at, updated_at)
       SELECT id, 'acc_probe', '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1,
              CASE WHEN id = ANY($2) THEN 'queued' ELSE 'delivered' END::"MessageStatus", now(), now()
       FROM unnest($1::text[]) AS id RETURNING id, status
     ), e AS (
       INSERT INTO message_events (message_id, sequence, status) SELECT id, 1, status FROM m
     )
     INSERT INTO message_segments (message_id, seq, status, carrier_id, carrier_message_id)
     SELECT id, 1, CASE WHEN status = 'queued' THEN 'pending' ELSE 'delivered' END::"SegmentStatus",
            CASE WHEN status = 'queued' THEN NULL ELSE 'sim' END, CASE WHEN status = 'queued' THEN NULL ELSE 'old-' || id END
     FROM m`,
    [ids, queued],
  );
});
afterAll(() => world.destroy());

/** Runs `step` and answers the reads of message tables in the plan of every statement it sent, for the values it carried. */
async function messageTableReads(step: () => Promise<void>): Promise<PlannedRead[]> {
  const recorder = recordQueries();
  try {
    await step();
  } finally {
    recorder.stop();
  }
  const reads: PlannedRead[] = [];
  for (const query of recorder.queries)
    if (/\bmessage(s|_segments|_events)\b/.test(query.text))
      reads.push(...(await plannedReadsOf(pool, query.text, query.values)));
  return reads.filter((read) => MESSAGE_TABLES.includes(read.table));
}

/** Index conditions that hold a batch's whole list beside another condition on the key. */
const listBesideKey = (reads: PlannedRead[]) =>
  reads.map((read) => read.indexCond ?? "").filter((cond) => /= ANY/.test(cond) && / AND /.test(cond));

/** The tables read through an index: the plans were recorded and read the tables they change. */
const indexedTables = (reads: PlannedRead[]) =>
  [...new Set(reads.filter((read) => read.indexCond).map((read) => read.table))].sort();

async function countIn(ids: string[], status: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM messages WHERE id = ANY($1) AND status = $2::"MessageStatus"',
    [ids, status],
  );
  return rows[0]!.n;
}

describe.each([
  { when: "before the week has statistics", batch: 0, analyze: false },
  { when: "with the week analysed", batch: 1, analyze: true },
])("a batch's probes, $when", ({ batch: k, analyze }) => {
  let batch: string[];
  beforeAll(async () => {
    batch = batches[k]!;
    if (analyze) for (const table of MESSAGE_TABLES) await pool.query(`ANALYZE ${table}`);
  });

  it("the dispatcher's load and submit record, and the move to sent, probe by key only", async () => {
    const reads = await messageTableReads(async () => {
      expect((await loadMessages(pool, batch)).every((message) => message?.status === "queued")).toBe(true);
      await recordSubmitted(
        pool,
        batch.map((messageId) => ({
          messageId,
          seq: 1,
          carrierId: "sim",
          carrierMessageId: `c-${messageId}`,
          receiptKey: receiptKeyForSubmit(`c-${messageId}`, "as_is"),
          completesMessage: true,
        })),
      );
    });
    expect(await countIn(batch, "sent")).toBe(BATCH);
    expect(indexedTables(reads)).toEqual(["message_segments", "messages"]);
    expect(listBesideKey(reads)).toEqual([]);
  });

  it("a batch of receipts and the move to delivered probe by key only", async () => {
    const reads = await messageTableReads(async () => {
      const results = await applyReceipts(
        pool,
        batch.map((messageId) => ({
          carrierId: "sim",
          carrierMessageId: `c-${messageId}`,
          state: "delivered" as const,
        })),
      );
      expect(results.map((result) => result.outcome)).toEqual(batch.map(() => "applied"));
    });
    expect(await countIn(batch, "delivered")).toBe(BATCH);
    expect(indexedTables(reads)).toEqual(["message_segments", "messages"]);
    expect(listBesideKey(reads)).toEqual([]);
  });
});
