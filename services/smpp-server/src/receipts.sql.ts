import type pg from "pg";

/** A receipt to write to a bind of the account. */
export interface ReceiptRow {
  eventId: string;
  accountId: string;
  submitId: string;
  messageId: string | null;
  /** The customer's destination: the receipt's source_addr. */
  sourceAddr: string;
  /** The customer's source: the receipt's destination_addr. */
  destinationAddr: string;
  messageState: number;
  text: string;
}

/** Stores receipts; a repeat of (event, submit id), as a redelivered job makes, is ignored. */
export async function insertReceipts(pool: pg.Pool, rows: ReceiptRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <T>(pick: (r: ReceiptRow) => T) => rows.map(pick);
  await pool.query({
    name: "smpp-insert-receipts",
    text: `INSERT INTO smpp_receipts (event_id, account_id, submit_id, message_id, source_addr, destination_addr, message_state, text)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::smallint[], $8::text[])
           ON CONFLICT (event_id, submit_id) DO NOTHING`,
    values: [
      column((r) => r.eventId),
      column((r) => r.accountId),
      column((r) => r.submitId),
      column((r) => r.messageId),
      column((r) => r.sourceAddr),
      column((r) => r.destinationAddr),
      column((r) => r.messageState),
      column((r) => r.text),
    ],
  });
}

/** A receipt claimed for sending. */
export interface ClaimedReceipt extends ReceiptRow {
  id: string;
}

/**
 * Claims up to `limit` due receipts of an account by pushing their next attempt
 * `retryMs` ahead: if the customer does not acknowledge one, it is due again then, on
 * whichever replica holds a bind. SKIP LOCKED keeps two replicas off the same rows.
 */
export async function claimReceipts(
  pool: pg.Pool,
  accountId: string,
  limit: number,
  retryMs: number,
): Promise<ClaimedReceipt[]> {
  const { rows } = await pool.query<ClaimedReceipt>({
    name: "smpp-claim-receipts",
    text: `UPDATE smpp_receipts SET attempts = attempts + 1,
             next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
           WHERE id IN (SELECT id FROM smpp_receipts WHERE account_id = $1 AND next_attempt_at <= now()
                        ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING id::text, event_id AS "eventId", account_id AS "accountId", submit_id AS "submitId",
                     message_id AS "messageId", source_addr AS "sourceAddr", destination_addr AS "destinationAddr",
                     message_state AS "messageState", text`,
    values: [accountId, limit, retryMs],
  });
  return rows;
}

/** Forgets receipts the customer acknowledged. */
export async function deleteReceipts(pool: pg.Pool, ids: string[]): Promise<void> {
  await pool.query({
    name: "smpp-delete-receipts",
    text: "DELETE FROM smpp_receipts WHERE id = ANY($1::bigint[])",
    values: [ids],
  });
}

/** Makes claimed receipts due now again: they were never written (the bind went before). */
export async function releaseReceipts(pool: pg.Pool, ids: string[]): Promise<void> {
  await pool.query("UPDATE smpp_receipts SET next_attempt_at = now() WHERE id = ANY($1::bigint[])", [ids]);
}
