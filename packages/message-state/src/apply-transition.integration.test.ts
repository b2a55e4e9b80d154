import type { Database } from "@sms/db";
import { insertMessage, insertMessageIn, openTransitionWorld, snapshotMessage } from "../test/fixtures";
import { applyTransition } from "./apply-transition";
import { MESSAGE_STATUSES, canTransition, outboxEventType, type MessageStatus } from "./transitions";

describe("applyTransition (real PostgreSQL)", () => {
  let db: Database;
  let accountId: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, accountId, close } = await openTransitionWorld());
  });
  afterAll(() => close());

  const at = new Date("2026-11-21T10:00:00.123Z");

  const messageIn = (status: MessageStatus, credits = 1) =>
    insertMessageIn(db.pool, { accountId, status, credits, at });
  const snapshot = (id: string) => snapshotMessage(db.pool, id);

  const pairs = MESSAGE_STATUSES.filter((to) => to !== "scheduled").flatMap((to) =>
    MESSAGE_STATUSES.map((from) => [from, to] as const),
  );

  it.each(pairs)(
    "%s → %s: applies exactly when allowed, with one history and one outbox row",
    async (from, to) => {
      const id = await messageIn(from);
      const before = await snapshot(id);
      const result = await applyTransition(db.pool, {
        messageId: id,
        to,
        at,
        errorCode: to === "failed" ? "SMPP_ESME_RINVDSTADR" : null,
        errorMessage: to === "failed" ? "invalid destination" : null,
      });
      const after = await snapshot(id);

      if (!canTransition(from, to)) {
        expect(result).toEqual({ applied: false, currentStatus: from });
        expect(after).toEqual(before);
        return;
      }
      const sequence = before.message.status_sequence + 1;
      expect(result).toMatchObject({ applied: true, sequence, previousStatus: from });
      expect(after.message.status).toBe(to);
      expect(after.message.status_sequence).toBe(sequence);
      expect(after.message.updated_at.getTime()).toBeGreaterThanOrEqual(before.message.updated_at.getTime());
      expect(after.events).toBe(before.events + 1);
      const { rows: events } = await db.pool.query(
        "SELECT * FROM message_events WHERE message_id = $1 AND sequence = $2",
        [id, sequence],
      );
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ status: to, previous_status: from, occurred_at: at });

      const type = outboxEventType(to);
      expect(after.outbox).toBe(before.outbox + (type ? 1 : 0));
      if (type) {
        const { rows: outbox } = await db.pool.query(
          `SELECT id, account_id, message_id, type, sequence, created_at, payload FROM events AS o WHERE message_id = $1 AND sequence = $2`,
          [id, sequence],
        );
        expect(outbox).toHaveLength(1);
        expect(outbox[0].id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
        expect(outbox[0]).toMatchObject({ type, account_id: accountId });
        const { rows: pending } = await db.pool.query("SELECT 1 FROM outbox_pending WHERE event_id = $1", [
          outbox[0].id,
        ]);
        expect(pending).toHaveLength(1);
        // Only keys with a value are stored (status-event.ts); the webhook sends the rest as null.
        const documented = [
          "batch_id",
          "client_ref",
          "delivered_at",
          "error_code",
          "error_message",
          "otp_id",
          "previous_status",
          "segments",
          "sender_id",
          "sent_at",
          "smpp_part_ids",
          "status",
          "to",
        ];
        for (const [key, value] of Object.entries(outbox[0].payload)) {
          expect(documented).toContain(key);
          expect(value).not.toBeNull();
        }
        expect(outbox[0].payload).toMatchObject({ to: "+14155550100", status: to, previous_status: from });
        expect(JSON.stringify(outbox[0].payload)).not.toContain("secret text");
      }
      expect(after.dispatch).toBe(before.dispatch + (to === "queued" ? 1 : 0));
    },
  );

  it("puts the ids an SMPP customer was given for its parts in the event, in part order", async () => {
    const id = await insertMessage(db.pool, { accountId, status: "queued" });
    await db.pool.query("UPDATE messages SET source = 'smpp' WHERE id = $1", [id]);
    for (const [seq, part] of [
      [2, "msg_part_b"],
      [1, "msg_part_a"],
    ] as const)
      await db.pool.query(
        `INSERT INTO smpp_submits (id, account_id, message_id, source_addr, destination_addr, concat_key, part_seq, part_total)
         VALUES ($1, $2, $3, 'ACME', '14155550100', $4, $5, 2)`,
        [part, accountId, id, `k-${id}`, seq],
      );
    await applyTransition(db.pool, { messageId: id, to: "sent", at: new Date() });
    const single = await insertMessage(db.pool, { accountId, status: "queued" });
    await applyTransition(db.pool, { messageId: single, to: "sent", at: new Date() });
    const { rows } = await db.pool.query(
      "SELECT message_id, payload->'smpp_part_ids' AS ids FROM events WHERE message_id = ANY($1::text[]) AND type = 'message.sent'",
      [[id, single]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.message_id, r.ids]))).toEqual({
      [id]: ["msg_part_a", "msg_part_b"],
      [single]: null,
    });
  });

  it("stamps sent_at, delivered_at and failed_at with the event time and keeps the error", async () => {
    const sent = await messageIn("sent");
    await applyTransition(db.pool, { messageId: sent, to: "delivered", at: new Date(at.getTime() + 5000) });
    const failed = await messageIn("queued");
    await applyTransition(db.pool, {
      messageId: failed,
      to: "failed",
      at,
      errorCode: "SMPP_ESME_RINVDSTADR",
      errorMessage: "invalid destination",
    });
    const { rows } = await db.pool.query(
      "SELECT id, sent_at, delivered_at, failed_at, error_code, error_message FROM messages WHERE id = ANY($1) ORDER BY id",
      [[sent, failed]],
    );
    expect(rows[0]).toMatchObject({
      sent_at: at,
      delivered_at: new Date(at.getTime() + 5000),
      failed_at: null,
    });
    expect(rows[1]).toMatchObject({
      sent_at: null,
      delivered_at: null,
      failed_at: at,
      error_code: "SMPP_ESME_RINVDSTADR",
      error_message: "invalid destination",
    });
    const { rows: outbox } = await db.pool.query(
      "SELECT payload FROM events WHERE message_id = $1 AND type = 'message.failed'",
      [failed],
    );
    expect(outbox[0].payload).toMatchObject({
      error_code: "SMPP_ESME_RINVDSTADR",
      error_message: "invalid destination",
    });
    // Never sent, never delivered: not stored (the webhook sends them as null).
    expect(outbox[0].payload).not.toHaveProperty("sent_at");
    expect(outbox[0].payload).not.toHaveProperty("delivered_at");
    const { rows: history } = await db.pool.query(
      "SELECT error_code, error_message FROM message_events WHERE message_id = $1 AND status = 'failed'",
      [failed],
    );
    expect(history).toEqual([{ error_code: "SMPP_ESME_RINVDSTADR", error_message: "invalid destination" }]);
  });

  it("applies a receipt that arrives before the submit response, then ignores the late submit response", async () => {
    const id = await messageIn("queued");
    const receipt = await applyTransition(db.pool, { messageId: id, to: "delivered", at });
    expect(receipt).toEqual({ applied: true, sequence: 2, previousStatus: "queued", refundedCredits: 0 });
    const late = await applyTransition(db.pool, { messageId: id, to: "sent", at });
    expect(late).toEqual({ applied: false, currentStatus: "delivered" });
    const { rows } = await db.pool.query(
      "SELECT sequence, status, previous_status FROM message_events WHERE message_id = $1 ORDER BY sequence",
      [id],
    );
    expect(rows).toEqual([
      { sequence: 1, status: "queued", previous_status: null },
      { sequence: 2, status: "delivered", previous_status: "queued" },
    ]);
    const { rows: message } = await db.pool.query(
      "SELECT sent_at, delivered_at FROM messages WHERE id = $1",
      [id],
    );
    // Delivered implies the carrier had it: sent_at is the best time we know.
    expect(message[0]).toEqual({ sent_at: at, delivered_at: at });
  });

  it("reports a duplicate receipt as not applied and changes nothing", async () => {
    const id = await messageIn("delivered");
    const before = await snapshot(id);
    expect(await applyTransition(db.pool, { messageId: id, to: "delivered", at })).toEqual({
      applied: false,
      currentStatus: "delivered",
    });
    expect(await snapshot(id)).toEqual(before);
  });

  it("reports an unknown message id as not applied with no current status", async () => {
    expect(
      await applyTransition(db.pool, { messageId: "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV", to: "sent", at }),
    ).toEqual({
      applied: false,
      currentStatus: null,
    });
  });

  it("refuses a move to scheduled: nothing becomes scheduled again", async () => {
    const id = await messageIn("queued");
    await expect(applyTransition(db.pool, { messageId: id, to: "scheduled", at })).rejects.toThrow(
      /scheduled/,
    );
  });
});
