import { createDatabase, partitionName, type Database } from "@sms/db";
import { createTestWorld, plannedReadsOf, type TestWorld } from "@sms/testing";
import { balanceOf, insertAccount, insertMessage, insertSegment } from "../test/fixtures";
import { applyTransition } from "./apply-transition";
import { expireOverdue, OVERDUE_AWAITING, OVERDUE_SENT, timeOutReceipts } from "./expiry";
import { dueByIdBound } from "./message-weeks";
import { promoteDueScheduled } from "./promote-due";

describe("validity and receipt-timeout sweeps (real PostgreSQL)", () => {
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

  /** Sets when the message's validity ends, `seconds` from the database's now (negative: in the past). */
  async function endsIn(id: string, seconds: number): Promise<void> {
    await db.pool.query("UPDATE messages SET expires_at = now() + make_interval(secs => $2) WHERE id = $1", [
      id,
      seconds,
    ]);
  }

  async function read(id: string) {
    const { rows } = await db.pool.query(
      "SELECT status::text, error_code, error_message, failed_at FROM messages WHERE id = $1",
      [id],
    );
    return rows[0];
  }

  async function failedEvent(id: string) {
    const { rows } = await db.pool.query(
      "SELECT type, payload FROM events WHERE message_id = $1 AND type = 'message.failed'",
      [id],
    );
    return rows;
  }

  it("fails queued and scheduled messages whose validity ended EXPIRED, refunds them, and leaves the rest", async () => {
    const accountId = await insertAccount(db.pool, 100);
    const queued = await insertMessage(db.pool, { accountId, credits: 2 });
    const scheduled = await insertMessage(db.pool, { accountId, status: "scheduled", credits: 3 });
    const stillValid = await insertMessage(db.pool, { accountId, credits: 5 });
    const noValidity = await insertMessage(db.pool, { accountId, credits: 7 });
    await endsIn(queued, -1);
    await endsIn(scheduled, -1);
    await endsIn(stillValid, 60);

    expect(await expireOverdue(db.pool)).toEqual({ failed: 2, refundedCredits: 5 });
    for (const id of [queued, scheduled]) {
      expect(await read(id)).toMatchObject({ status: "failed", error_code: "EXPIRED" });
      const [event] = await failedEvent(id);
      expect(event.payload).toMatchObject({ status: "failed", error_code: "EXPIRED" });
    }
    const { rows: history } = await db.pool.query(
      "SELECT previous_status::text, status::text FROM message_events WHERE message_id = $1 ORDER BY sequence",
      [scheduled],
    );
    expect(history).toEqual([
      { previous_status: null, status: "scheduled" },
      { previous_status: "scheduled", status: "failed" },
    ]);
    expect((await read(stillValid)).status).toBe("queued");
    expect((await read(noValidity)).status).toBe("queued");
    expect(await balanceOf(db.pool, accountId)).toBe(105);
    // A second pass finds nothing: no second event, no second refund.
    expect(await expireOverdue(db.pool)).toEqual({ failed: 0, refundedCredits: 0 });
  });

  it("gives no credits back for a message one of whose segments is already with a carrier", async () => {
    const accountId = await insertAccount(db.pool, 100);
    const id = await insertMessage(db.pool, { accountId, credits: 2, segments: 2 });
    await insertSegment(db.pool, id, { seq: 1, status: "submitted", carrierMessageId: "c-1" });
    await endsIn(id, -1);
    expect(await expireOverdue(db.pool)).toEqual({ failed: 1, refundedCredits: 0 });
    expect(await read(id)).toMatchObject({ status: "failed", error_code: "EXPIRED" });
    expect(await balanceOf(db.pool, accountId)).toBe(100);
  });

  it("tells an OTP's SMS that its code expired", async () => {
    const accountId = await insertAccount(db.pool, 100);
    const id = await insertMessage(db.pool, { accountId });
    await db.pool.query("UPDATE messages SET otp_id = 'otp_x' WHERE id = $1", [id]);
    await endsIn(id, -1);
    await expireOverdue(db.pool);
    expect(await read(id)).toMatchObject({ status: "failed", error_code: "OTP_EXPIRED" });
  });

  it("takes at most `limit` per pass, oldest end first", async () => {
    const accountId = await insertAccount(db.pool, 100);
    const ids = [];
    for (let i = 0; i < 5; i++) {
      const id = await insertMessage(db.pool, { accountId });
      await endsIn(id, -10 + i);
      ids.push(id);
    }
    expect((await expireOverdue(db.pool, { limit: 2 })).failed).toBe(2);
    const statuses = await Promise.all(ids.map(async (id) => (await read(id)).status));
    expect(statuses).toEqual(["failed", "failed", "queued", "queued", "queued"]);
    expect((await expireOverdue(db.pool, { limit: 10 })).failed).toBe(3);
  });

  it("never promotes a due scheduled message whose validity has ended", async () => {
    const accountId = await insertAccount(db.pool, 100);
    const id = await insertMessage(db.pool, {
      accountId,
      status: "scheduled",
      scheduledAt: new Date(Date.now() - 1000),
    });
    await endsIn(id, -1);
    const promoted = await promoteDueScheduled(db.pool);
    expect(promoted.map((m) => m.messageId)).not.toContain(id);
    expect((await read(id)).status).toBe("scheduled");
    await expireOverdue(db.pool);
    expect((await read(id)).error_code).toBe("EXPIRED");
  });

  it("fails sent messages RECEIPT_TIMEOUT once their validity and the grace are over, with no refund", async () => {
    const accountId = await insertAccount(db.pool, 100);
    const sent = async (endsInSeconds: number) => {
      const id = await insertMessage(db.pool, { accountId, credits: 2 });
      await insertSegment(db.pool, id, { status: "submitted", carrierMessageId: `c-${id}` });
      expect((await applyTransition(db.pool, { messageId: id, to: "sent", at: new Date() })).applied).toBe(
        true,
      );
      await endsIn(id, endsInSeconds);
      return id;
    };
    const overdue = await sent(-3601);
    const inGrace = await sent(-3000);
    const valid = await sent(60);

    expect(await timeOutReceipts(db.pool, { graceSeconds: 3600 })).toEqual({ failed: 1, refundedCredits: 0 });
    expect(await read(overdue)).toMatchObject({
      status: "failed",
      error_code: "RECEIPT_TIMEOUT",
      error_message: "No final delivery receipt came within the validity period plus 1 h.",
    });
    const [event] = await failedEvent(overdue);
    expect(event.payload).toMatchObject({ previous_status: "sent", error_code: "RECEIPT_TIMEOUT" });
    expect((await read(inGrace)).status).toBe("sent");
    expect((await read(valid)).status).toBe("sent");
    expect(await balanceOf(db.pool, accountId)).toBe(100);

    // States never move back: a receipt after the timeout changes nothing.
    expect(await applyTransition(db.pool, { messageId: overdue, to: "delivered", at: new Date() })).toEqual({
      applied: false,
      currentStatus: "failed",
    });
  });

  it.each([
    ["validity", OVERDUE_AWAITING, "messages_awaiting_expires_at_idx", [1000, dueByIdBound()]],
    ["receipt timeout", OVERDUE_SENT, "messages_sent_expires_at_idx", [1000, 3600, dueByIdBound()]],
  ])("the %s sweep reads its partial index, not the table", async (_name, text, index, values) => {
    const client = await db.pool.connect();
    try {
      // Plans as on a big table: the planner would rightly scan a table this small.
      await client.query("SET enable_seqscan = off");
      const reads = await plannedReadsOf(client, text, values);
      // Every week due so far through its partial index, in expiry order (no sort); the weeks
      // ahead are not planned at all (docs/decisions.md#partitions).
      expect([...new Set(reads.map((read) => read.via))]).toEqual([index]);
      const dueWeek = partitionName("messages", new Date(Date.now() + 3_600_000));
      expect(reads.filter((read) => read.partition > dueWeek)).toEqual([]);
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, values);
      expect(rows.map((row) => row["QUERY PLAN"]).join("\n")).not.toMatch(/Sort/);
    } finally {
      await client.query("RESET enable_seqscan");
      client.release();
    }
  });
});
