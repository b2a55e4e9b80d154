import { setTimeout as delay } from "node:timers/promises";
import { createLogger } from "@sms/logger";
import { createDispatchProducer } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { waitFor } from "@sms/testing";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest, type RunningDlrIngest } from "@sms/dlr-ingest";
import { startDispatchWorld, type DispatchWorld } from "@sms/dispatcher/test/harness";

/**
 * Over real SMPP: our dispatcher and dlr-ingest against the carrier simulator playing
 * the carriers that broke us: decimal ids, receipts before responses, a counter that restarts,
 * padded ids, a number never answered, an empty message_id. Each message must end with its own
 * receipt's outcome, and never with another's.
 */
let w: DispatchWorld;
let dlr: RunningDlrIngest;

beforeAll(async () => {
  w = await startDispatchWorld({
    env: {
      // Long enough that a busy machine answers every submit in time: with DISPATCH_MAX_ATTEMPTS 1
      // and no reconciler here, a late answer left its message queued, and the cases below, which
      // are about receipts, failed 2 runs in 3 under a load of 8-12 (300 ms before).
      SUBMIT_TIMEOUT_MS: "2000",
      DISPATCH_RETRY_BASE_MS: "50",
      // One try per job: the test then plays the reconciler, which queues the message again.
      DISPATCH_MAX_ATTEMPTS: "1",
      SEGMENT_MAX_UNANSWERED_SUBMITS: "3",
    },
    simulatorSettings: { settings: { receiptDelayMs: 5, messageIds: "decimal" } },
  });
  dlr = await startDlrIngest(
    loadDlrIngestConfig({ ...w.world.env, PORT: "0", HOST: "127.0.0.1", CARRIER_REFRESH_MS: "200" }),
    createLogger("dlr-ingest-test", "error"),
  );
  await waitFor(() => w.simulator.stats().binds.some((b) => b.state === "bound_rx"), {
    what: "dlr-ingest's receiver bind",
  });
});

afterAll(async () => {
  await dlr?.stop();
  await w?.stop();
});

/** Numbers whose receipt says delivered (…1234) or undeliverable (…0001), in a random mix. */
function numbers(count: number, seed: number): Array<{ to: string; expect: "delivered" | "failed" }> {
  return Array.from({ length: count }, (_, i) => {
    const failing = (i * 7 + seed) % 3 === 0;
    return {
      to: failing ? `+447705${String(i).padStart(2, "0")}0001` : `+447705${String(i).padStart(2, "0")}1234`,
      expect: failing ? "failed" : "delivered",
    };
  });
}

async function sendAll(plan: Array<{ to: string; expect: "delivered" | "failed" }>) {
  const sent = [];
  for (const item of plan) sent.push({ ...item, id: (await w.send(item.to, `truth ${item.to}`)).id });
  return sent;
}

/** Every message final with its own outcome, one final event each, and every receipt applied to its own segment. */
async function expectOwnOutcomes(sent: Array<{ id: string; to: string; expect: string }>) {
  for (const message of sent) await w.waitForStatus(message.id, ["delivered", "failed"], 20000);
  const { rows } = await w.db.pool.query<{ id: string; to_number: string; status: string; finals: number }>(
    `SELECT m.id, m.to_number, m.status::text,
            (SELECT count(*)::int FROM message_events e WHERE e.message_id = m.id AND e.status IN ('delivered', 'failed')) AS finals
     FROM messages m WHERE m.id = ANY($1::text[])`,
    [sent.map((m) => m.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const message of sent) {
    expect({
      to: message.to,
      status: byId.get(message.id)!.status,
      finals: byId.get(message.id)!.finals,
    }).toEqual({
      to: message.to,
      status: message.expect,
      finals: 1,
    });
  }
  // Each message's receipt settled its own segment, with its own outcome: an applied receipt's
  // record is its segment (docs/decisions.md#applied-receipts).
  const segments = await w.db.pool.query<{ message_id: string; status: string }>(
    "SELECT message_id, status::text FROM message_segments WHERE message_id = ANY($1::text[])",
    [sent.map((m) => m.id)],
  );
  expect(Object.fromEntries(segments.rows.map((r) => [r.message_id, r.status]))).toEqual(
    Object.fromEntries(sent.map((m) => [m.id, m.expect])),
  );
}

describe("receipts over real SMPP", () => {
  it("decimal ids, every receipt before its response: each message ends with its own outcome (none stuck sent, none settled by a twin)", async () => {
    w.simulator.update({ receiptsBeforeResponses: true });
    await expectOwnOutcomes(await sendAll(numbers(60, 1)));
  });

  it("after the carrier restarts its counter (ids reused), new receipts settle the new messages and leave the old ones alone", async () => {
    w.simulator.update({ receiptsBeforeResponses: false });
    const first = await sendAll(numbers(15, 2));
    await expectOwnOutcomes(first);
    w.simulator.restartIdCounter();
    w.simulator.update({ receiptsBeforeResponses: true });
    const second = await sendAll(numbers(15, 5));
    await expectOwnOutcomes(second);
    await expectOwnOutcomes(first);
  });

  it("records when the receipt came, to the second, with the carrier's minute-precision done date beside it", async () => {
    const [sent] = await sendAll(numbers(1, 1).slice(0, 1));
    await expectOwnOutcomes([sent!]);
    const { rows } = await w.db.pool.query<{ done_at: Date; carrier_done_at: Date; received_at: Date }>(
      `SELECT s.done_at, s.carrier_done_at, r.received_at FROM message_segments s
       JOIN carrier_receipts r ON r.message_id = s.message_id AND r.outcome = 'applied' WHERE s.message_id = $1`,
      [sent!.id],
    );
    const row = rows[0]!;
    // Appendix B dates stop at the minute: the carrier's is kept as it said…
    expect(row.carrier_done_at.getUTCSeconds()).toBe(0);
    expect(row.carrier_done_at.getTime()).toBeLessThanOrEqual(row.received_at.getTime());
    // …and ours is the time it came (the same transaction's clock; clamped to after the submit).
    expect(Math.abs(row.done_at.getTime() - row.received_at.getTime())).toBeLessThan(1000);
  });

  it("padded receipt ids ('0000' + id) match", async () => {
    w.simulator.update({ receiptsBeforeResponses: false, receiptIdPadding: 4 });
    await expectOwnOutcomes(await sendAll(numbers(10, 3)));
    w.simulator.update({ receiptIdPadding: 0 });
  });

  it("a carrier quoting its decimal ids in hex, with receipt_id_form hex", async () => {
    await w.db.pool.query("UPDATE carriers SET receipt_id_form = 'hex'");
    // The dispatcher re-reads carriers every 200 ms: wait until it holds the new form.
    await waitFor(() => w.dispatcher.carriers.candidates("+447700900000")[0]?.receiptIdForm === "hex", {
      what: "the dispatcher to read receipt_id_form",
    });
    w.simulator.update({ receiptIdForm: "hex", receiptsBeforeResponses: true });
    await expectOwnOutcomes(await sendAll(numbers(20, 4)));
    w.simulator.update({ receiptIdForm: "as_is", receiptsBeforeResponses: false });
    await w.db.pool.query("UPDATE carriers SET receipt_id_form = 'as_is'");
  });

  it("accepted with an empty message_id: sent, with no carrier id", async () => {
    const { id } = await w.send("+447705550011", "no id");
    await w.waitForStatus(id, ["sent", "failed"]);
    const { rows } = await w.db.pool.query(
      "SELECT m.status::text, s.status::text AS segment, s.carrier_message_id FROM messages m JOIN message_segments s ON s.message_id = m.id WHERE m.id = $1",
      [id],
    );
    expect(rows).toEqual([{ status: "sent", segment: "submitted", carrier_message_id: null }]);
    const metrics = await (await fetch(`http://127.0.0.1:${w.dispatcher.port}/metrics`)).text();
    expect(metrics).toMatch(/^sms_dispatch_accepted_without_id_total\{carrier_id="sim"\} 1$/m);
  });
});

describe("a submit the carrier never answers", () => {
  it("is sent at most SEGMENT_MAX_UNANSWERED_SUBMITS times in all, though the reconciler queues it again, then fails CARRIER_TIMEOUT with no credits back", async () => {
    const before = await balance();
    const to = "+447705550010";
    const { id } = await w.send(to, "never answered");
    // Play the reconciler: whenever the dispatcher has let go of it (DISPATCH_MAX_ATTEMPTS 1), queue it again.
    const connection = createRedis(w.world.redisUrl, "queue");
    const producer = createDispatchProducer({ connection, prefix: w.world.redisPrefix });
    try {
      await waitFor(
        async () => {
          const status = await messageStatus(id);
          if (status === "queued") {
            await producer.enqueueUnheld([{ messageId: id, accountId: w.accountId, priority: "normal" }]);
            await delay(200);
          }
          return status === "failed" ? status : undefined;
        },
        { timeoutMs: 30000, what: "the unanswered message to fail" },
      );
    } finally {
      await producer.close();
      connection.disconnect();
    }
    const { rows } = await w.db.pool.query("SELECT error_code FROM messages WHERE id = $1", [id]);
    expect(rows[0].error_code).toBe("CARRIER_TIMEOUT");
    expect(w.simulator.messages({ to })).toHaveLength(3);
    const segment = await w.db.pool.query(
      "SELECT status::text, unanswered_submits FROM message_segments WHERE message_id = $1",
      [id],
    );
    expect(segment.rows).toEqual([{ status: "failed", unanswered_submits: 3 }]);
    // The carrier may have sent it: nothing comes back.
    expect(await balance()).toBe(before - 1n);
  });
});

async function balance(): Promise<bigint> {
  const { rows } = await w.db.pool.query("SELECT balance FROM accounts WHERE id = $1", [w.accountId]);
  return BigInt(rows[0].balance);
}

async function messageStatus(id: string): Promise<string> {
  const { rows } = await w.db.pool.query("SELECT status::text FROM messages WHERE id = $1", [id]);
  return rows[0].status;
}
