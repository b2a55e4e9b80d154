import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import {
  applyTransitions,
  foldMessageCounts,
  MESSAGE_COUNT_DELTAS_OF_ACCEPTED,
  type MessageStatus,
} from "@sms/message-state";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { deliveryRate, loadOverview, toBuckets } from "./overview";

const NOW = new Date("2026-11-21T15:30:00Z");
const MIDNIGHT = new Date("2026-11-21T00:00:00Z");
const FIRST_HOUR = new Date("2026-11-20T16:00:00Z");

// The overview as it was computed before the message counts: from the messages themselves.
const OLD_BY_STATUS = `
SELECT status::text AS status, count(*)::int AS n FROM messages
WHERE account_id = $1 AND created_at >= $2 GROUP BY status`;
const OLD_BY_HOUR = `
SELECT floor(extract(epoch FROM created_at) / 3600)::int AS hour, status::text AS status, count(*)::int AS n
FROM messages WHERE account_id = $1 AND created_at >= $2 GROUP BY 1, 2`;

describe("loadOverview (real PostgreSQL)", () => {
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
    await db.pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'T', 500, now())", [
      id,
    ]);
    return id;
  }

  /** `count` queued messages created at `createdAt`, written with their history as acceptance does. */
  async function accept(accountId: string, createdAt: Date, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => newId("msg"));
    await db.pool.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                               status, created_at, updated_at)
         SELECT id, $2, '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, 'queued', $3, $3
         FROM unnest($1::text[]) AS t(id) RETURNING id, account_id, status, created_at
       ), events_in AS (
         INSERT INTO message_events (message_id, sequence, status, occurred_at) SELECT id, 1, 'queued', created_at FROM m
       )
       ${MESSAGE_COUNT_DELTAS_OF_ACCEPTED}`,
      [ids, accountId, createdAt],
    );
    return ids;
  }

  async function move(ids: string[], to: MessageStatus): Promise<void> {
    await applyTransitions(
      db.pool,
      ids.map((messageId) => ({ messageId, to, at: NOW, errorCode: to === "failed" ? "X" : null })),
    );
  }

  it("shows the same numbers as counting the messages, folded or not, and nothing of another account", async () => {
    const accountId = await insertAccount();
    const other = await insertAccount();
    const beforeChart = await accept(accountId, new Date("2026-11-20T15:59:59Z"), 4);
    const yesterday = await accept(accountId, new Date("2026-11-20T16:00:00Z"), 5);
    const early = await accept(accountId, new Date("2026-11-21T00:00:00Z"), 6);
    const late = await accept(accountId, new Date("2026-11-21T15:10:00Z"), 7);
    await accept(other, new Date("2026-11-21T15:10:00Z"), 9);
    await move([...beforeChart, ...yesterday, ...early.slice(0, 5), ...late.slice(0, 3)], "sent");
    await foldMessageCounts(db.pool, { limit: 3 });
    await move([...yesterday.slice(0, 2), ...early.slice(0, 3), late[0]!], "delivered");
    await move([yesterday[2]!, early[3]!, late[1]!, late[3]!], "failed");
    // Refused (only a scheduled message can be canceled): counts nothing.
    await move([early[5]!], "canceled");

    const overview = await loadOverview(db.pool, accountId, NOW);
    const oldToday = await db.pool.query<{ status: string; n: number }>(OLD_BY_STATUS, [accountId, MIDNIGHT]);
    const oldHours = await db.pool.query<{ hour: number; status: string; n: number }>(OLD_BY_HOUR, [
      accountId,
      FIRST_HOUR,
    ]);
    const today = Object.fromEntries(oldToday.rows.map((r) => [r.status, r.n]));
    expect(overview).toEqual({
      balance: 504n, // 500 plus the refunds of the 4 failed messages (charged 1 credit each)
      today,
      deliveryRate: deliveryRate(today),
      hours: toBuckets(oldHours.rows, FIRST_HOUR),
    });
    // The same figures written out, so a change to both ways at once still shows.
    expect(overview!.today).toEqual({ queued: 4, sent: 2, delivered: 4, failed: 3 });
    expect(overview!.deliveryRate).toBe(4 / 7);
    expect(overview!.hours[0]!.counts).toEqual({ sent: 2, delivered: 2, failed: 1 });
    expect(overview!.hours[8]!.counts).toEqual({ sent: 1, delivered: 3, failed: 1, queued: 1 });
    expect(overview!.hours[23]!.counts).toEqual({ delivered: 1, failed: 2, sent: 1, queued: 3 });

    // Once every delta is folded, the same again.
    while ((await foldMessageCounts(db.pool, { limit: 1000 })) > 0);
    expect(await loadOverview(db.pool, accountId, NOW)).toEqual(overview);
  });
});
