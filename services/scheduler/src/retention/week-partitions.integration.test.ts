import { partitionName, listPartitions } from "@sms/db";
import { partitionedSince } from "@sms/testing";
import { createRetentionWorld, DAY, POLICY, type RetentionWorld } from "../../test/retention-world";
import { runRetentionPass } from "./pass";

/* The message tables go by the week of the message id (docs/decisions.md#message-weeks). */
describe("retention of the message tables' weeks (real PostgreSQL)", () => {
  let w: RetentionWorld;
  beforeEach(async () => {
    w = await createRetentionWorld();
  });
  afterEach(() => w.destroy());

  it("drops whole weeks of messages with their history, segments and OTPs, never a week with a message still open", async () => {
    // A database converted long ago: no partition of the rows from before the conversion, and
    // every past week its own.
    const MESSAGE_TABLES = ["messages", "message_events", "message_segments"] as const;
    await partitionedSince(w.db.pool, MESSAGE_TABLES, w.ago(140), w.now);
    const gone = [await w.message(120, "delivered", true), await w.message(100, "failed", true)];
    const openWeek = [await w.message(110, "delivered", true), await w.message(110, "sent", true)];
    const young = await w.message(80, "delivered", true);
    const weeks = (...days: number[]) =>
      MESSAGE_TABLES.flatMap((table) => days.map((d) => partitionName(table, w.ago(d)))).sort();

    const pass = await runRetentionPass(w.db.pool, POLICY, { batchSize: 100, maxPerTable: 1000, now: w.now });

    const dropped = pass!.droppedPartitions
      .filter((p) => (MESSAGE_TABLES as readonly string[]).includes(p.table))
      .map((p) => p.name);
    // Every week wholly past the 90 days (its last moment is), the three tables together...
    expect(dropped).toEqual(expect.arrayContaining(weeks(120, 100)));
    const lastWeekPast = partitionName("messages", w.ago(97)); // ends at or before day 90
    expect(dropped.filter((name) => name.startsWith("messages_")).every((n) => n <= lastWeekPast)).toBe(true);
    // ...but the week of a message still sent (whole: its final message too), and the weeks
    // still within retention.
    for (const name of weeks(110, 80, 89)) expect(dropped).not.toContain(name);
    expect(await w.ids("SELECT id FROM messages")).toEqual([...openWeek, young].sort());
    expect(await w.ids("SELECT DISTINCT message_id AS id FROM message_events")).toEqual(
      [...openWeek, young].sort(),
    );
    expect(await w.ids("SELECT message_id AS id FROM message_segments")).toEqual([...openWeek, young].sort());
    // The OTPs of the dropped weeks went with them (the others are past the 30 days of OTPs).
    expect(
      await w.ids(`SELECT message_id AS id FROM otps WHERE message_id = ANY('{${gone.join(",")}}')`),
    ).toEqual([]);
    // Weeks are ready as far ahead as a message may be scheduled (180 days).
    const names = (await listPartitions(w.db.pool, "message_segments")).map((p) => p.name);
    expect(names).toContain(partitionName("message_segments", new Date(w.now.getTime() + 181 * DAY)));

    // Once that message is final, its week goes on the next pass, whole.
    await w.db.pool.query("UPDATE messages SET status = 'delivered' WHERE id = $1", [openWeek[1]]);
    const next = await runRetentionPass(w.db.pool, POLICY, { batchSize: 100, maxPerTable: 1000, now: w.now });
    expect(next!.droppedPartitions.map((p) => p.name).sort()).toEqual(weeks(110));
    expect(await w.ids("SELECT id FROM messages")).toEqual([young]);
  });
});
