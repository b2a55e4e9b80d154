import fc from "fast-check";
import pg from "pg";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { RECEIPT_ID_FORMS, receiptKeyForSubmit, receiptKeyOf } from "../src";

// The keys are computed in TypeScript (the locks) and in SQL (the trigger on message_segments,
// carrier_receipts.receipt_key): a lock on one key and a row under another would let a receipt
// and its submit response pass each other. They must agree on every id.
let world: TestWorld;
let pool: pg.Pool;

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(2);
});
afterAll(async () => {
  await world.destroy();
});

const ids = fc.oneof(
  fc.stringMatching(/^ ?0{0,4}[0-9]{1,25} ?$/),
  fc.stringMatching(/^0{0,4}[0-9a-fA-F]{1,40}$/),
  fc.stringMatching(/^[0-9a-zA-Z_.-]{1,30}$/),
);

it("receiptKeyOf and receiptKeyForSubmit give what SQL receipt_key_of and receipt_key_for_submit give", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(ids, { minLength: 1, maxLength: 50 }), async (batch) => {
      const { rows } = await pool.query<{
        of: string | null;
        as_is: string | null;
        hex: string | null;
        decimal: string | null;
      }>(
        `SELECT receipt_key_of(id) AS of, receipt_key_for_submit(id, 'as_is') AS as_is,
                receipt_key_for_submit(id, 'hex') AS hex, receipt_key_for_submit(id, 'decimal') AS decimal
         FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) ORDER BY n`,
        [batch],
      );
      batch.forEach((id, i) => {
        const expected: Record<string, string | null> = { of: receiptKeyOf(id) };
        for (const form of RECEIPT_ID_FORMS) expected[form] = receiptKeyForSubmit(id, form);
        expect({ id, ...rows[i] }).toEqual({ id, ...expected });
      });
    }),
    { numRuns: 60 },
  );
});
