import os from "node:os";
import { Batcher } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { applyTransition } from "@sms/message-state";
import { createCarrierBudget } from "@sms/rate-limit";
import { createRedis, type Redis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { waitFor } from "@sms/testing";
import { dispatchMessage, type DispatchContext } from "../src/dispatch.processor";
import { loadMessages, markSubmitting, recordSubmitted } from "../src/segments.sql";
import { startDispatchWorld, type DispatchWorld } from "./harness";

// A message that leaves queued while a dispatcher holds it (the OTP sweep fails an
// expired code's SMS; a receipt settles it) must not be put on the wire after that.
describe("a message that is no longer queued is never submitted", () => {
  let w: DispatchWorld;
  let redis: Redis;
  let ctx: DispatchContext;

  beforeAll(async () => {
    w = await startDispatchWorld();
    redis = createRedis(w.world.redisUrl, "command");
    const pool = w.db.pool;
    // The running dispatcher's binds; this context dispatches only the messages the test hands it.
    ctx = {
      pool,
      carriers: w.dispatcher.carriers,
      carrierBudget: createCarrierBudget(redis, { prefix: w.world.redisPrefix, highReservePercent: 20 }),
      logger: createLogger("dispatch-test", "error"),
      box: createSecretBox(w.world.env.SECRET_ENCRYPTION_KEY!),
      retryLimit: 2,
      health: w.dispatcher.health,
      maxUnansweredSubmits: 3,
      marks: new Batcher((marks) => markSubmitting(pool, marks, "test:1"), {
        maxBatch: 10,
        maxConcurrent: 1,
      }),
      records: new Batcher((records) => recordSubmitted(pool, records), { maxBatch: 10, maxConcurrent: 1 }),
    };
  });
  afterAll(async () => {
    redis.disconnect();
    await w.stop();
  });

  /** The message as its dispatch job loads it. */
  const loaded = async (id: string) => (await loadMessages(w.db.pool, [id]))[0]!;

  /** A queued message that no job refers to (as a scheduled one just promoted, before its job exists). */
  async function queuedMessage(to: string): Promise<string> {
    const id = newId("msg");
    await w.db.pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged, status)
       VALUES ($1, $2, $3, 'ACME', 'Your code is 123456', 'GSM7', 1, 1, 'queued')`,
      [id, w.accountId, to],
    );
    await w.db.pool.query(
      "INSERT INTO message_events (message_id, sequence, status) VALUES ($1, 1, 'queued')",
      [id],
    );
    return id;
  }

  const balance = async () =>
    Number(
      (await w.db.pool.query("SELECT balance FROM accounts WHERE id = $1", [w.accountId])).rows[0].balance,
    );

  it("refuses the mark when the message failed after the dispatcher read it, and returns its credits", async () => {
    const id = await queuedMessage("+14155557001");
    const before = await balance();
    // The sweep's side: the message row locked FOR NO KEY UPDATE (as the OTP sweep locks it).
    const sweep = await w.db.pool.connect();
    try {
      await sweep.query("BEGIN");
      await sweep.query("SELECT 1 FROM messages WHERE id = $1 FOR NO KEY UPDATE", [id]);
      const dispatching = dispatchMessage(ctx, await loaded(id));
      // The dispatcher read the message (queued) and now waits on the row lock to mark its segment.
      await waitFor(
        async () =>
          (
            await w.db.pool.query(
              "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
          ).rowCount,
        { what: "the mark to wait on the message row" },
      );
      await applyTransition(sweep, {
        messageId: id,
        to: "failed",
        at: new Date(),
        errorCode: "OTP_EXPIRED",
        errorMessage: "The OTP expired before its SMS reached a carrier.",
      });
      await sweep.query("COMMIT");
      expect(await dispatching).toBe("skipped");
    } finally {
      sweep.release();
    }
    expect(w.simulator.messages({ to: "14155557001" })).toEqual([]);
    expect(
      (await w.db.pool.query("SELECT 1 FROM message_segments WHERE message_id = $1", [id])).rowCount,
    ).toBe(0);
    expect(await balance()).toBe(before + 1);
  });

  it("marks segments of queued messages only, and names the process that marked them", async () => {
    const queued = await queuedMessage("+14155557002");
    const failed = await queuedMessage("+14155557003");
    await applyTransition(w.db.pool, { messageId: failed, to: "failed", at: new Date(), errorCode: "X" });
    const marked = await markSubmitting(
      w.db.pool,
      [
        { messageId: failed, seq: 1, carrierId: "sim" },
        { messageId: queued, seq: 1, carrierId: "sim" },
      ],
      `${os.hostname()}:7`,
    );
    expect(marked).toEqual([false, true]);
    const { rows } = await w.db.pool.query(
      "SELECT message_id, status, submitted_by FROM message_segments WHERE message_id = ANY($1::text[])",
      [[queued, failed]],
    );
    expect(rows).toEqual([{ message_id: queued, status: "submitting", submitted_by: `${os.hostname()}:7` }]);
  });

  it("still submits a queued message, recording the dispatcher that did", async () => {
    const id = await queuedMessage("+14155557004");
    expect(await dispatchMessage(ctx, await loaded(id))).toBe("sent");
    expect(w.simulator.messages({ to: "14155557004" })).toHaveLength(1);
    const { rows } = await w.db.pool.query(
      "SELECT submitted_by FROM message_segments WHERE message_id = $1",
      [id],
    );
    expect(rows).toEqual([{ submitted_by: "test:1" }]);
  });
});
