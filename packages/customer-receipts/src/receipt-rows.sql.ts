import type { Queryable } from "@sms/db";

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
export async function insertReceipts(db: Queryable, rows: ReceiptRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <T>(pick: (r: ReceiptRow) => T) => rows.map(pick);
  await db.query({
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
