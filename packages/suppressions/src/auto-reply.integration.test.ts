import pg from "pg";
import { inTransaction } from "@sms/db";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { keywordsOnInbound, sendKeywordAutoReply } from "./auto-reply";
import { getSuppression } from "./store";

describe("keyword auto-replies (real PostgreSQL)", () => {
  let world: TestWorld;
  let pool: pg.Pool;
  const options = { maxSegments: 10, creditsPerSegment: 1 };
  const hook = keywordsOnInbound(options);
  let seq = 0;

  beforeAll(async () => {
    world = await createTestWorld();
    pool = world.pool(4);
  });
  afterAll(async () => {
    await world.destroy();
  });

  async function account(
    replies: { stop?: string; start?: string; help?: string },
    balance = 100,
  ): Promise<string> {
    const id = `acc_reply_${++seq}`;
    await pool.query(
      `INSERT INTO accounts (id, name, balance, auto_reply_stop, auto_reply_start, auto_reply_help, updated_at)
       VALUES ($1, 'test', $2, $3, $4, $5, now())`,
      [id, balance, replies.stop ?? null, replies.start ?? null, replies.help ?? null],
    );
    return id;
  }

  /** What the inbound path does: the hook, in a transaction of its own. */
  const receive = (accountId: string | null, text: string, from = "+447911123423") =>
    inTransaction(pool, (client) => hook(client, { accountId, from, to: "+14155550999", text }));

  async function repliesOf(accountId: string) {
    const { rows } = await pool.query(
      `SELECT m.to_number, m.sender_id, m.body, m.status, m.client_ref, m.credits_charged,
              EXISTS (SELECT 1 FROM dispatch_outbox d WHERE d.message_id = m.id) AS dispatching,
              (SELECT array_agg(type ORDER BY type) FROM events e WHERE e.message_id = m.id) AS events
         FROM messages m WHERE m.account_id = $1 ORDER BY m.created_at, m.id`,
      [accountId],
    );
    return rows;
  }

  const balanceOf = async (id: string) =>
    Number((await pool.query("SELECT balance FROM accounts WHERE id = $1", [id])).rows[0].balance);

  it("answers STOP from the number that received it, as a charged queued message, after suppressing the sender", async () => {
    const id = await account({ stop: "Acme: unsubscribed. Reply START to resubscribe." });
    await receive(id, "Stop");
    expect(await getSuppression(pool, id, "+447911123423")).toMatchObject({ source: "keyword" });
    expect(await repliesOf(id)).toEqual([
      {
        to_number: "+447911123423",
        sender_id: "+14155550999",
        body: "Acme: unsubscribed. Reply START to resubscribe.",
        status: "queued",
        client_ref: "auto-reply:stop",
        credits_charged: 1,
        dispatching: true,
        events: ["message.queued"],
      },
    ]);
    expect(await balanceOf(id)).toBe(99);
  });

  it("sends nothing by default, for an ordinary text, or for a number nobody owns", async () => {
    const id = await account({});
    await receive(id, "STOP");
    await receive(id, "HELP");
    const withReplies = await account({ stop: "bye", help: "help text" });
    await receive(withReplies, "stop sending me these");
    await receive(null, "HELP");
    expect(await repliesOf(id)).toEqual([]);
    expect(await repliesOf(withReplies)).toEqual([]);
  });

  it("never answers HELP to a suppressed number; START removes the number first, so its reply goes", async () => {
    const id = await account({ start: "Welcome back", help: "Reply STOP to stop" });
    const from = "+447911123424";
    await receive(id, "STOP", from);
    await receive(id, "help", from);
    expect(await repliesOf(id)).toEqual([]);
    await receive(id, "START", from);
    await receive(id, "INFO", from);
    expect((await repliesOf(id)).map((r) => [r.client_ref, r.body])).toEqual([
      ["auto-reply:start", "Welcome back"],
      ["auto-reply:help", "Reply STOP to stop"],
    ]);
  });

  it("does not send when the balance does not cover it, and the inbound transaction still commits", async () => {
    const id = await account({ stop: "bye" }, 0);
    await inTransaction(pool, async (client) => {
      expect(
        await sendKeywordAutoReply(
          client,
          { accountId: id, from: "+447911123425", to: "+14155550999", text: "STOP" },
          options,
        ),
      ).toEqual({ action: "none", reason: "INSUFFICIENT_CREDITS" });
    });
    expect(await repliesOf(id)).toEqual([]);
    expect(await balanceOf(id)).toBe(0);
    // An alphanumeric sender cannot be answered.
    const other = await account({ help: "help" });
    await inTransaction(pool, async (client) => {
      expect(
        await sendKeywordAutoReply(
          client,
          { accountId: other, from: "ACME BANK", to: "+14155550999", text: "HELP" },
          options,
        ),
      ).toEqual({ action: "none", reason: "not_a_number" });
    });
  });
});
