import { waitFor } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "./harness";

/**
 * Validity (docs/messages.md#validity) on the dispatcher's own path, with no scheduler running (so no
 * sweep): the real dispatcher, the carrier simulator over SMPP, PostgreSQL and Redis.
 */
let w: DispatchWorld;

beforeAll(async () => {
  w = await startDispatchWorld();
});
afterAll(() => w?.stop());

const balanceOf = async (accountId: string) =>
  Number((await w.db.pool.query("SELECT balance FROM accounts WHERE id = $1", [accountId])).rows[0].balance);

async function send(accountId: string, to: string, validForMs: number) {
  return w.acceptance.acceptor.acceptOne(
    { id: accountId, senderIds: new Set(["ACME"]) },
    {
      to,
      message: `valid for ${validForMs} ms`,
      senderId: "ACME",
      validUntil: new Date(Date.now() + validForMs),
    },
  );
}

it("gives the carrier what is left of the validity in submit_sm.validity_period", async () => {
  const message = await send(w.accountId, "+14155551200", 3600_000);
  // No dlr-ingest here: sent is as far as it gets.
  await w.waitForStatus(message.id, ["sent"]);
  const [received] = w.simulator.messages({ to: "+14155551200" });
  // Relative (YYMMDDhhmmss000R): an hour, less the moments the message waited.
  expect(received!.validityPeriod).toMatch(/^0000000(05[0-9]{3}|10000)000R$/);
});

it("fails a message whose validity ends while its account's pace holds it back EXPIRED, refunded, never at the carrier", async () => {
  // One message a second: the first goes now, the others wait in delayed jobs for their turn.
  const accountId = await w.createAccount({ messagesPerSecond: 1 });
  const before = await balanceOf(accountId);
  const to = Array.from({ length: 8 }, (_, i) => `+1415555130${i}`);
  const sent = [];
  for (const number of to) sent.push(await send(accountId, number, 2500));
  const ids = sent.map((m) => m.id);
  for (const id of ids) await w.waitForStatus(id, ["sent", "failed"], 20_000);

  const { rows } = await w.db.pool.query<{
    id: string;
    to_number: string;
    status: string;
    error_code: string;
  }>("SELECT id, to_number, status::text, error_code FROM messages WHERE id = ANY($1) ORDER BY to_number", [
    ids,
  ]);
  const expired = rows.filter((row) => row.status === "failed");
  const delivered = rows.filter((row) => row.status === "sent");
  // Turns are whole seconds: the rest of this one, then one each second after. At most four fit
  // in 2.5 s (turns at 0 and 1, 2, 3 s less the part of this second already gone): four or more expire.
  expect(expired.length).toBeGreaterThanOrEqual(4);
  expect(delivered.length).toBeGreaterThanOrEqual(1);
  for (const row of expired) expect(row.error_code).toBe("EXPIRED");
  // Nothing of an expired message reached the carrier, and its credit came back.
  for (const row of expired) expect(w.simulator.messages({ to: row.to_number })).toHaveLength(0);
  const { rows: segments } = await w.db.pool.query(
    "SELECT 1 FROM message_segments WHERE message_id = ANY($1) AND status <> 'pending'",
    [expired.map((row) => row.id)],
  );
  expect(segments).toHaveLength(0);
  await waitFor(async () => (await balanceOf(accountId)) === before - delivered.length || undefined, {
    what: "the expired messages' credits to come back",
  });
  // Refund entries cover one statement's messages each (docs/decisions.md#ledger-per-statement).
  const { rows: refunds } = await w.db.pool.query(
    `SELECT sum(message_count)::int AS messages, sum(delta)::int AS credits FROM credit_ledger
      WHERE reason = 'message_refund' AND account_id = $1`,
    [accountId],
  );
  expect(refunds).toEqual([{ messages: expired.length, credits: expired.length }]);
});

it("fails a message the carrier keeps throttling EXPIRED once its validity ends, refunded", async () => {
  // …0005 is answered ESME_RTHROTTLED for its first N tries: the dispatcher backs off and
  // hands it on as a delayed job, and the retry finds its validity over.
  w.simulator.update({ magicThrottleTries: 1_000_000 });
  try {
    const before = await balanceOf(w.accountId);
    const message = await send(w.accountId, "+14155550005", 1500);
    await w.waitForStatus(message.id, ["failed"], 20_000);
    const row = (await w.db.pool.query("SELECT error_code FROM messages WHERE id = $1", [message.id]))
      .rows[0];
    expect(row.error_code).toBe("EXPIRED");
    // The carrier refused every try: nothing of it is with the carrier, so the credit came back.
    expect(w.simulator.messages({ to: "+14155550005" }).every((m) => m.status === "refused")).toBe(true);
    expect(await balanceOf(w.accountId)).toBe(before);
  } finally {
    w.simulator.update({ magicThrottleTries: 2 });
  }
});

it("fails EXPIRED, in the same job, a message whose validity ends during the carrier's back-off", async () => {
  // 300 ms of validity against back-offs of 20, 40, 80, 160, 320 ms: a later try's mark is
  // refused mid-job. The dispatcher alone (no sweep here) must end it, not leave it queued.
  w.simulator.update({ magicThrottleTries: 1_000_000 });
  try {
    const before = await balanceOf(w.accountId);
    const message = await send(w.accountId, "+14155560005", 300);
    await w.waitForStatus(message.id, ["failed"], 10_000);
    const row = (await w.db.pool.query("SELECT error_code FROM messages WHERE id = $1", [message.id]))
      .rows[0];
    expect(row.error_code).toBe("EXPIRED");
    expect(await balanceOf(w.accountId)).toBe(before);
  } finally {
    w.simulator.update({ magicThrottleTries: 2 });
  }
});
