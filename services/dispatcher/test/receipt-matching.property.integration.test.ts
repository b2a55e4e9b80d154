import crypto from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import fc from "fast-check";
import { createDatabase, type Database } from "@sms/db";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import {
  applyReceipts,
  receiptKeyForSubmit,
  sweepUnmatched,
  type ReceiptIdForm,
} from "@sms/carrier-receipts";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { markSubmitting, recordSubmitted } from "../src/segments.sql";

/**
 * The property: whatever the order of submit responses and receipts, whatever base the
 * carrier writes its ids in (decimal counters whose hex twins collide, hex quoted in decimal,
 * decimal quoted in hex, padded), and after the carrier restarts its counter, no receipt is ever
 * applied to another message, and every message ends with its own receipt's outcome.
 *
 * The real code on both sides: markSubmitting and recordSubmitted (the dispatcher) and
 * applyReceipts and sweepUnmatched (dlr-ingest), on PostgreSQL.
 */
let world: TestWorld;
let db: Database;
let accountId: string;

beforeAll(async () => {
  world = await createTestWorld();
  db = createDatabase(world.databaseUrl, { poolSize: 6 });
  accountId = await insertAccount(db.pool, 1_000_000);
});
afterAll(async () => {
  await db.close();
  await world.destroy();
});

type Outcome = "delivered" | "undeliverable";
type Step =
  | { kind: "mark"; message: number }
  | { kind: "response"; message: number }
  | { kind: "receipt"; message: number; copy: number };

interface Plan {
  form: ReceiptIdForm;
  padding: number;
  /** Messages of the first run of the carrier's counter, then of the run after its restart. */
  phases: Array<{ outcomes: Outcome[]; order: number[]; duplicates: boolean[] }>;
}

const phase = fc.integer({ min: 1, max: 12 }).chain((count) =>
  fc.record({
    outcomes: fc.array(fc.constantFrom<Outcome>("delivered", "undeliverable"), {
      minLength: count,
      maxLength: count,
    }),
    // A sort key per (message, event): the events' order, random.
    order: fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: count * 4, maxLength: count * 4 }),
    duplicates: fc.array(fc.boolean(), { minLength: count, maxLength: count }),
  }),
);

const plans = fc.record({
  form: fc.constantFrom<ReceiptIdForm>("as_is", "hex", "decimal"),
  padding: fc.integer({ min: 0, max: 3 }),
  phases: fc.array(phase, { minLength: 1, maxLength: 2 }),
});

/** The i-th id of the carrier's counter, in the base its submit_sm_resp uses, and as its receipts quote it. */
function idsOf(form: ReceiptIdForm, counter: number, padding: number): { response: string; quoted: string } {
  // Small counters on purpose: 10..99 in decimal and their hex twins are all owned by someone.
  const n = 10 + counter;
  const response = form === "decimal" ? n.toString(16) : String(n);
  const quoted = form === "hex" ? n.toString(16) : String(n);
  return { response, quoted: "0".repeat(padding) + quoted };
}

/** A message's events in a random order, its mark (the submit going out) first. */
function stepsOf(count: number, order: number[], duplicates: boolean[]): Step[] {
  const keyed: Array<{ key: number; step: Step }> = [];
  for (let message = 0; message < count; message++) {
    const [a, b, c, d] = order.slice(message * 4, message * 4 + 4) as [number, number, number, number];
    const first = Math.min(a, b, c, d);
    keyed.push({ key: first - 0.5, step: { kind: "mark", message } });
    keyed.push({ key: b, step: { kind: "response", message } });
    keyed.push({ key: c, step: { kind: "receipt", message, copy: 0 } });
    if (duplicates[message]) keyed.push({ key: d, step: { kind: "receipt", message, copy: 1 } });
  }
  return keyed.sort((x, y) => x.key - y.key).map((k) => k.step);
}

async function play(plan: Plan): Promise<void> {
  const carrierId = `prop_${crypto.randomBytes(5).toString("hex")}`;
  await db.pool.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, receipt_id_form, updated_at)
     VALUES ($1, $1, '127.0.0.1', 1, 'x', 'x', $2, now())`,
    [carrierId, plan.form],
  );
  const expected = new Map<string, Outcome>();
  const receiptOwner = new Map<string, string>(); // receipt row id → the message it was sent for
  for (const [n, { outcomes, order, duplicates }] of plan.phases.entries()) {
    // The carrier's counter starts over in each phase: the ids of the phase before are reused.
    // A restart takes the carrier more than the millisecond our timestamps tell apart.
    if (n > 0) await delay(3);
    const messages: string[] = [];
    for (const outcome of outcomes) {
      const id = await insertMessage(db.pool, { accountId });
      messages.push(id);
      expected.set(id, outcome);
    }
    for (const step of stepsOf(outcomes.length, order, duplicates)) {
      const messageId = messages[step.message]!;
      const ids = idsOf(plan.form, step.message, plan.padding);
      if (step.kind === "mark") {
        expect(await markSubmitting(db.pool, [{ messageId, seq: 1, carrierId }], "prop")).toEqual([true]);
      } else if (step.kind === "response") {
        await recordSubmitted(db.pool, [
          {
            messageId,
            seq: 1,
            carrierId,
            carrierMessageId: ids.response,
            receiptKey: receiptKeyForSubmit(ids.response, plan.form),
            completesMessage: true,
          },
        ]);
      } else {
        const [result] = await applyReceipts(db.pool, [
          { carrierId, carrierMessageId: ids.quoted, state: outcomes[step.message]! },
        ]);
        // Applied at once, it has no row (docs/decisions.md#applied-receipts): its result names
        // the message it settled. Otherwise its row says it, once the sweep or a record settles it.
        if (result!.receiptId === null) expect(result!.messageId).toBe(messageId);
        else receiptOwner.set(result!.receiptId, messageId);
      }
    }
  }
  // By now every response is recorded: the sweep settles what is still unmatched (duplicates).
  await sweepUnmatched(db.pool, { olderThanMs: 0 });

  const receipts = await db.pool.query<{ id: string; outcome: string; message_id: string | null }>(
    "SELECT id::text, outcome::text, message_id FROM carrier_receipts WHERE carrier_id = $1",
    [carrierId],
  );
  for (const row of receipts.rows) {
    if (row.message_id !== null)
      expect({ receipt: row.id, message: row.message_id }).toEqual({
        receipt: row.id,
        message: receiptOwner.get(row.id),
      });
    expect(row.outcome).not.toBe("unmatched");
  }
  const messages = await db.pool.query<{ id: string; status: string }>(
    "SELECT id, status::text FROM messages WHERE id = ANY($1::text[])",
    [[...expected.keys()]],
  );
  for (const row of messages.rows)
    expect({ id: row.id, status: row.status }).toEqual({
      id: row.id,
      status: expected.get(row.id) === "delivered" ? "delivered" : "failed",
    });
}

it("no receipt is ever applied to another message, in any order, in any id base, across a counter restart", async () => {
  await fc.assert(fc.asyncProperty(plans, play), { numRuns: 40 });
}, 120_000);
