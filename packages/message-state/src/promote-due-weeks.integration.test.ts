import crypto from "node:crypto";
import type pg from "pg";
import { partitionName } from "@sms/db";
import { encodeUlid } from "@sms/ids";
import { createTestWorld, partitionsPlanned, retainedMessageWeeks, type TestWorld } from "@sms/testing";
import { insertAccount } from "../test/fixtures";
import { dueByIdBound, waitingSinceIdBound } from "./message-weeks";
import { promoteDueScheduled, PROMOTE_STATEMENTS } from "./promote-due";
import { VALIDITY_MAX_SECONDS } from "./validity";

/*
 * Promotion runs five times a second on every scheduler replica, planned for each run. With the
 * 13 weeks of the default retention (docs/decisions.md#message-weeks), a plan of every week below
 * the due bound cost more than the run: the statement plans only the weeks a due message that is
 * still valid can be in (docs/benchmarks.md#idle).
 */
const now = Date.now();
let world: TestWorld;
let pool: pg.Pool;

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(2);
  await retainedMessageWeeks(pool, now);
});
afterAll(() => world.destroy());

it("plans only the weeks a due message still within its validity can be in", async () => {
  const values = [null, 1000, dueByIdBound(), waitingSinceIdBound(), ""];
  const weeks = await partitionsPlanned(pool, PROMOTE_STATEMENTS.LOCK_DUE, values, ["messages"]);
  // From the oldest due-time id still valid to the due bound an hour ahead: under four days, so
  // these three times name every week between.
  const validSince = now - VALIDITY_MAX_SECONDS * 1000 - 3_600_000;
  const expected = [validSince, now, now + 3_600_000].map((time) =>
    partitionName("messages", new Date(time)),
  );
  // The default partition may hold any id: it is planned whatever the bounds.
  expect(weeks).toEqual([...new Set([...expected, "messages_default"])].sort());
});

it("promotes a due message of an earlier week", async () => {
  const accountId = await insertAccount(pool, 0);
  // Due two days ago, still valid for a day: in last week's partition when today is early in the week.
  const id = `msg_${encodeUlid(now - 2 * 86_400_000, crypto.randomBytes(10))}`;
  await pool.query(
    `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                           status, scheduled_at, expires_at)
     VALUES ($1, $2, '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, 'scheduled', now() - interval '2 days',
             now() + interval '1 day')`,
    [id, accountId],
  );
  await pool.query("INSERT INTO message_events (message_id, sequence, status) VALUES ($1, 1, 'scheduled')", [
    id,
  ]);
  expect((await promoteDueScheduled(pool)).map((m) => m.messageId)).toEqual([id]);
});
