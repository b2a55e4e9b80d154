import fc from "fast-check";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { insertAccount } from "../test/fixtures";
import { applyTransition } from "./apply-transition";
import { eventDataSubquery } from "./status-event";
import { canTransition, MESSAGE_STATUSES, type MessageStatus } from "./transitions";

/**
 * What a status change stored as its event's payload until the events stopped storing one
 * (migration 20261202090000): built from the message row just after the change. The oracle the
 * data built from the history must equal, event by event.
 */
const PAYLOAD_STORED_WITH_THE_CHANGE = `jsonb_strip_nulls(jsonb_build_object(
  'to', to_number, 'status', status, 'previous_status', previous_status, 'sender_id', sender_id,
  'segments', segment_count, 'batch_id', batch_id, 'otp_id', otp_id, 'client_ref', client_ref,
  'error_code', error_code, 'error_message', error_message,
  'sent_at', to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'delivered_at', to_char(delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'smpp_part_ids', CASE WHEN source = 'smpp' AND status_sequence > 1 THEN (
    SELECT jsonb_agg(s.id ORDER BY s.part_seq) FROM smpp_submits s
    WHERE s.message_id = upd.id AND s.concat_key IS NOT NULL) END))`;

interface Move {
  to: MessageStatus;
  /** Seconds after the acceptance. */
  after: number;
  errorCode: string | null;
  errorMessage: string | null;
}

const move = fc.record({
  to: fc.constantFrom<MessageStatus>(...MESSAGE_STATUSES),
  after: fc.integer({ min: 0, max: 600 }),
  errorCode: fc.constantFrom(null, "SMPP_ESME_RTHROTTLED", "UNDELIV"),
  errorMessage: fc.constantFrom(null, "carrier said no", "timed out"),
});

const message = fc.record({
  start: fc.constantFrom<"scheduled" | "queued">("scheduled", "queued"),
  source: fc.constantFrom("api", "smpp", "otp"),
  clientRef: fc.constantFrom(null, "order-17"),
  inBatch: fc.boolean(),
  moves: fc.array(move, { maxLength: 6 }),
});

describe("a status event's data, built from the message and its history", () => {
  let world: TestWorld;
  let db: Database;
  let accountId: string;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 2 });
    accountId = await insertAccount(db.pool, 1_000_000);
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  async function insertMessage(m: MessageCase): Promise<string> {
    const id = newId("msg");
    const batchId = m.inBatch ? newId("bat") : null;
    if (batchId)
      await db.pool.query(
        "INSERT INTO batches (id, account_id, sender_id, total, accepted, rejected) VALUES ($1, $2, 'ACME', 1, 1, 0)",
        [batchId, accountId],
      );
    await db.pool.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, batch_id, source, to_number, sender_id, body, encoding, segment_count,
                               credits_charged, status, client_ref, created_at)
         VALUES ($1, $2, $3, $4::"MessageSource", '+14155550100', 'ACME', 'secret text', 'GSM7', 2, 2,
                 $5::"MessageStatus", $6, '2026-11-27T10:00:00Z')
         RETURNING id, status, created_at)
       INSERT INTO message_events (message_id, sequence, status, occurred_at) SELECT id, 1, status, created_at FROM m`,
      [id, accountId, batchId, m.source, m.start, m.clientRef],
    );
    if (m.source === "smpp")
      for (const part of [2, 1])
        await db.pool.query(
          `INSERT INTO smpp_submits (id, account_id, message_id, source_addr, destination_addr, concat_key, part_seq, part_total)
           VALUES ($1, $2, $3, 'ACME', '+14155550100', 'k', $4, 2)`,
          [`${id}-${part}`, accountId, id, part],
        );
    return id;
  }

  async function storedPayload(id: string, previous: MessageStatus | null): Promise<unknown> {
    const { rows } = await db.pool.query(
      `SELECT ${PAYLOAD_STORED_WITH_THE_CHANGE} AS payload
       FROM (SELECT m.*, $2::"MessageStatus" AS previous_status FROM messages AS m WHERE id = $1) AS upd`,
      [id, previous],
    );
    return rows[0].payload;
  }

  /** The function's data, after checking that the subquery the sender uses gives the same. */
  async function builtData(id: string, sequence: number): Promise<unknown> {
    const { rows } = await db.pool.query(
      `SELECT message_event_data($1, $2) AS data, (SELECT data FROM ${eventDataSubquery("$1", "$2::int")} AS d) AS subquery`,
      [id, sequence],
    );
    expect(rows[0].subquery).toEqual(rows[0].data);
    return rows[0].data;
  }

  it("equals, event by event, what the change would have stored, whatever the path", async () => {
    await fc.assert(
      fc.asyncProperty(message, async (m) => {
        const id = await insertMessage(m);
        const expected = new Map<number, unknown>([[1, await storedPayload(id, null)]]);
        let status: MessageStatus = m.start;
        for (const next of m.moves as Move[]) {
          if (!canTransition(status, next.to)) continue;
          const result = await applyTransition(db.pool, {
            messageId: id,
            to: next.to,
            at: new Date(Date.parse("2026-11-27T10:00:00Z") + next.after * 1000),
            errorCode: next.errorCode,
            errorMessage: next.errorMessage,
          });
          if (!result.applied) throw new Error(`${status} → ${next.to} refused`);
          expected.set(result.sequence, await storedPayload(id, status));
          status = next.to;
        }
        for (const [sequence, payload] of expected) expect(await builtData(id, sequence)).toEqual(payload);
      }),
      { numRuns: 60 },
    );
  });

  it("is what a change's event carries: its history row names it, and nothing stores the text", async () => {
    const id = await insertMessage({
      start: "queued",
      source: "api",
      clientRef: "order-17",
      inBatch: false,
      moves: [],
    });
    await applyTransition(db.pool, { messageId: id, to: "sent", at: new Date("2026-11-27T10:00:01Z") });
    const { rows: history } = await db.pool.query(
      "SELECT event_id FROM message_events WHERE message_id = $1 AND sequence = 2",
      [id],
    );
    const { rows } = await db.pool.query("SELECT id, type, payload FROM events WHERE message_id = $1", [id]);
    expect(rows).toEqual([
      {
        id: history[0].event_id,
        type: "message.sent",
        payload: {
          to: "+14155550100",
          status: "sent",
          previous_status: "queued",
          sender_id: "ACME",
          segments: 2,
          client_ref: "order-17",
          sent_at: "2026-11-27T10:00:01.000Z",
        },
      },
    ]);
    const { rows: outbox } = await db.pool.query("SELECT 1 FROM outbox_events WHERE message_id = $1", [id]);
    expect(outbox).toEqual([]);
  });

  it("is null for a message that is gone (past its retention), so no body is made up", async () => {
    expect(await builtData(newId("msg"), 2)).toBeNull();
  });
});

type MessageCase = {
  start: "scheduled" | "queued";
  source: string;
  clientRef: string | null;
  inBatch: boolean;
  moves: Move[];
};
