import pg from "pg";
import { createTestWorld, plannedReadsOf, readsOf, type PlannedRead, type TestWorld } from "@sms/testing";

/*
 * The lookups the sending path and the API make on the big tables must each be served by an index
 * (docs/operations.md#retention: at 10 million messages a day a scan of any of them is minutes).
 * The tables get enough rows for the planner to weigh them; the statements are the shapes the
 * services send (the Prisma calls of GET /v1/sms and GET /v1/sms/{id} written out as SQL).
 */

describe("hot query plans (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: pg.Pool;
  let messageId: string;

  beforeAll(async () => {
    world = await createTestWorld();
    db = world.pool(2);
    await db.query(
      `INSERT INTO accounts (id, name, updated_at) SELECT 'acc_' || n, 'a', now() FROM generate_series(0, 19) AS n`,
    );
    await db.query(
      `INSERT INTO batches (id, account_id, sender_id, total, accepted, rejected)
       SELECT 'bat_' || n, 'acc_' || n, 'ACME', 1000, 1000, 0 FROM generate_series(0, 19) AS n`,
    );
    await db.query(`INSERT INTO carriers (id, name, host, port, system_id, password, updated_at)
                    VALUES ('car_1', 'c', '127.0.0.1', 2775, 's', '', now())`);
    await db.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                               status, batch_id, client_ref, created_at, updated_at)
         SELECT 'msg_' || lpad(n::text, 26, '0'), 'acc_' || (n % 20), '+1415' || lpad(n::text, 7, '0'), 'ACME', 'hi',
                'GSM7', 1, 1, CASE WHEN n % 10 = 0 THEN 'failed' ELSE 'delivered' END::"MessageStatus",
                -- A bulk request of each account (1 message in 30), references on 1 in 7.
                CASE WHEN n % 30 = 0 THEN 'bat_' || (n % 20) END,
                CASE WHEN n % 7 = 0 THEN 'order-' || n END,
                now() - make_interval(secs => 30000 - n), now()
         FROM generate_series(1, 30000) AS n RETURNING id, created_at
       ), e AS (
         INSERT INTO message_events (message_id, sequence, status) SELECT id, k, 'queued' FROM m, generate_series(1, 3) k
       ), s AS (
         INSERT INTO message_segments (message_id, seq, status, carrier_id, carrier_message_id)
         SELECT id, 1, 'delivered', 'car_1', md5(id) FROM m
       )
       INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, message_id, seq, receipt_key, received_at)
       SELECT 'car_1', md5(id), 'delivered', 'applied', id, 1, md5(id), created_at FROM m`,
    );
    for (const table of ["messages", "message_events", "message_segments", "carrier_receipts"])
      await db.query(`ANALYZE ${table}`);
    messageId = "msg_" + "15000".padStart(26, "0");
  });
  afterAll(() => world.destroy());

  /**
   * Every read of `table` in the statement's plan is through `index` (a partitioned table's
   * index: its partitions' own indexes count as it); answers the reads, one per partition read.
   * The empty weeks ahead are left out: how a plan reads a partition without rows costs nothing,
   * and each plan is made with the partitions' sizes of the moment (docs/decisions.md#partitions).
   */
  async function expectIndexOn(
    table: string,
    index: string,
    sql: string,
    values: unknown[],
  ): Promise<PlannedRead[]> {
    const planned = (await plannedReadsOf(db, sql, values)).filter((read) => read.table === table);
    expect(planned.length).toBeGreaterThan(0);
    const reads = [];
    for (const read of planned)
      if ((await db.query(`SELECT 1 FROM ${read.partition} LIMIT 1`)).rowCount) reads.push(read);
    expect([...new Set(reads.map((read) => read.via))]).toEqual([index]);
    return planned;
  }

  it("a message by id (GET /v1/sms/{id}) reads the primary key", async () => {
    const reads = await expectIndexOn(
      "messages",
      "messages_pkey",
      "SELECT * FROM messages WHERE id = $1 AND account_id = $2",
      [messageId, "acc_0"],
    );
    // Of its week only (docs/decisions.md#partitions): these ids are below the conversion's bound.
    expect(reads.map((read) => read.partition)).toEqual(["messages_legacy"]);
  });

  it("a message's history reads its primary key, (message_id, sequence)", async () => {
    const reads = await expectIndexOn(
      "message_events",
      "message_events_pkey",
      "SELECT * FROM message_events WHERE message_id = ANY($1) ORDER BY sequence",
      [[messageId]],
    );
    expect(reads.map((read) => read.partition)).toEqual(["message_events_legacy"]);
  });

  it("a message's segments read the primary key", async () => {
    const reads = await expectIndexOn(
      "message_segments",
      "message_segments_pkey",
      "SELECT * FROM message_segments WHERE message_id = $1",
      [messageId],
    );
    expect(reads.map((read) => read.partition)).toEqual(["message_segments_legacy"]);
  });

  it("a receipt finds its segment by (carrier, receipt key)", async () => {
    await expectIndexOn(
      "message_segments",
      "message_segments_carrier_id_receipt_key_idx",
      "SELECT message_id, seq FROM message_segments WHERE carrier_id = $1 AND receipt_key = $2",
      ["car_1", "abc"],
    );
  });

  it("the list of an account, newest first, reads (account_id, created_at, id)", async () => {
    const list = `SELECT * FROM messages WHERE account_id = $1 %s ORDER BY created_at DESC, id DESC LIMIT 51`;
    const index = "messages_account_id_created_at_id_idx";
    await expectIndexOn("messages", index, list.replace("%s", ""), ["acc_3"]);
    await expectIndexOn("messages", index, list.replace("%s", "AND created_at >= $2 AND created_at < $3"), [
      "acc_3",
      new Date(Date.now() - 3_600_000),
      new Date(Date.now() - 1_800_000),
    ]);
    // The next page (GET /v1/sms?cursor=…): the created_at bound must be an index condition, so the
    // scan starts at the cursor instead of reading the account's newer rows and filtering them out.
    const nextPage = await expectIndexOn(
      "messages",
      index,
      list.replace("%s", "AND created_at <= $2 AND (created_at < $2 OR (created_at = $2 AND id < $3))"),
      ["acc_3", new Date(Date.now() - 3_600_000), messageId],
    );
    expect(nextPage.every((read) => read.indexCond?.includes("created_at <="))).toBe(true);
  });

  it("the messages of a customer's reference (GET /v1/sms?client_ref=…) read the index of referenced messages", async () => {
    await expectIndexOn(
      "messages",
      "messages_client_ref_idx",
      `SELECT * FROM messages WHERE account_id = $1 AND client_ref = $2 ORDER BY created_at DESC, id DESC LIMIT 51`,
      ["acc_7", "order-7007"],
    );
  });

  it("a batch's counts by status (GET /v1/batches/{id}) read the index of batched messages", async () => {
    // 500 messages: a bitmap scan (alone, or ANDed with the account's index) serves as well as an index scan.
    const reads = (
      await readsOf(
        db,
        `SELECT status, count(*) FROM messages WHERE batch_id = $1 AND account_id = $2 GROUP BY status`,
        ["bat_10", "acc_10"],
      )
    ).filter((read) => read.partition === "messages_legacy"); // the seed's week; the others are empty
    expect(reads).toHaveLength(1);
    expect(reads[0]!.via.split(" + ")).toContain("messages_batch_status_idx");
  });

  it("retention's read of the oldest messages walks the primary key up to the cutoff's id", async () => {
    await expectIndexOn(
      "messages",
      "messages_pkey",
      "SELECT id FROM messages WHERE id > $1 AND id < $2 ORDER BY id LIMIT 1000",
      ["", "msg_" + "01000".padStart(26, "0")],
    );
  });
});
