import type pg from "pg";
import type { ReceiptRow } from "@sms/customer-receipts";

/** A receipt claimed for sending. */
export interface ClaimedReceipt extends ReceiptRow {
  id: string;
}

/**
 * Claims up to `limit` due receipts of an account, oldest first, by pushing their next
 * attempt `retryMs` ahead: if the customer does not acknowledge one, it is due again then,
 * on whichever replica holds a bind. SKIP LOCKED keeps two replicas off the same rows. The
 * scan walks the account's receipts in id order past those not due (at most the ones in
 * flight to its binds); next_attempt_at is in no index, so the claim is a HOT update.
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
                        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
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
