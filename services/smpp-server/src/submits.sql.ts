import type pg from "pg";

/** One id we returned in a submit_sm_resp, and what receipts for it need. */
export interface SubmitRecord {
  id: string;
  accountId: string;
  messageId: string;
  registeredDelivery: number;
  sourceAddr: string;
  destinationAddr: string;
}

/** Writes the records of whole messages in one statement (called through a Batcher: group commit). */
export async function insertSubmits(pool: pg.Pool, records: SubmitRecord[]): Promise<void> {
  const column = <T>(pick: (r: SubmitRecord) => T) => records.map(pick);
  await pool.query({
    name: "smpp-insert-submits",
    text: `INSERT INTO smpp_submits (id, account_id, message_id, registered_delivery, source_addr, destination_addr)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::smallint[], $5::text[], $6::text[])`,
    values: [
      column((r) => r.id),
      column((r) => r.accountId),
      column((r) => r.messageId),
      column((r) => r.registeredDelivery),
      column((r) => r.sourceAddr),
      column((r) => r.destinationAddr),
    ],
  });
}
