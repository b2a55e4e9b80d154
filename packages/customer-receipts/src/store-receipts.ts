import type { Queryable } from "@sms/db";
import type { SmppReceiptJob } from "@sms/queues";
import { buildReceiptText, isFinalStatus, wantsReceipt } from "./receipt-text";
import { insertReceipts, type ReceiptRow } from "./receipt-rows.sql";

/** The submit records of one message, with what the receipt text needs from the message. */
interface SubmitOfMessage {
  id: string;
  account_id: string;
  message_id: string;
  registered_delivery: number;
  source_addr: string;
  destination_addr: string;
  created_at: Date;
  body: string;
}

export interface StoredReceipts {
  /** Per event, in order: false when it is final but its message has no submit record (yet). */
  found: boolean[];
  /** Accounts that got at least one receipt row. */
  accountIds: string[];
}

/**
 * Writes the smpp_receipts rows of these status changes: one per submit_sm id of the
 * message that asked for a receipt of this outcome (a concatenated message has one per
 * part). Only final statuses produce receipts. A repeat of an event writes nothing twice.
 */
export async function storeReceiptsFor(
  db: Queryable,
  events: readonly SmppReceiptJob[],
): Promise<StoredReceipts> {
  const finals = events.filter((event) => isFinalStatus(event.status));
  if (finals.length === 0) return { found: events.map(() => true), accountIds: [] };
  const { rows } = await db.query<SubmitOfMessage>({
    // Named, so it is planned once: its generic plan probes smpp_submits by message_id whatever
    // the table's statistics say. Unnamed, it was planned for each batch's 500 ids, and a table
    // not yet analysed (a new one, or autovacuum behind) was read whole: 75 ms a batch instead
    // of 4. The body by a subquery per submit, not a join: with a join the planner hashed the
    // whole messages table whenever its statistics lagged the table's growth; a subquery is one
    // primary-key probe, into the one week partition its id names (pruned as it runs).
    name: "smpp-submits-of-messages",
    text: `SELECT s.id, s.account_id, s.message_id, s.registered_delivery, s.source_addr, s.destination_addr,
                  s.created_at, (SELECT m.body FROM messages m WHERE m.id = s.message_id) AS body
           FROM smpp_submits s
           WHERE s.message_id = ANY($1::text[])`,
    values: [finals.map((event) => event.messageId)],
  });
  const byMessage = new Map<string, SubmitOfMessage[]>();
  for (const row of rows) {
    const submits = byMessage.get(row.message_id);
    if (submits) submits.push(row);
    else byMessage.set(row.message_id, [row]);
  }
  const receipts: ReceiptRow[] = [];
  const found = events.map((event) => {
    const status = event.status;
    if (!isFinalStatus(status)) return true;
    // account_id must match the event's: a receipt never crosses accounts, whatever an event says.
    const submits = (byMessage.get(event.messageId) ?? []).filter((s) => s.account_id === event.accountId);
    for (const submit of submits) {
      if (!wantsReceipt(submit.registered_delivery, status)) continue;
      const { text, messageState } = buildReceiptText({
        submitId: submit.id,
        status,
        errorCode: event.errorCode,
        submittedAt: submit.created_at,
        doneAt: new Date(event.occurredAt),
        body: submit.body,
      });
      receipts.push({
        eventId: event.eventId,
        accountId: event.accountId,
        submitId: submit.id,
        messageId: event.messageId,
        sourceAddr: submit.destination_addr,
        destinationAddr: submit.source_addr,
        messageState,
        text,
      });
    }
    return submits.length > 0;
  });
  await insertReceipts(db, receipts);
  return { found, accountIds: [...new Set(receipts.map((r) => r.accountId))] };
}

/** The channel on which smpp-server replicas hear that an account has new receipts (payload: the account id). */
export const RECEIPTS_CHANNEL = "smpp_receipts";

/** Tells every smpp-server replica; inside a transaction, PostgreSQL delivers it at the commit. */
export async function notifyReceiptsStored(db: Queryable, accountIds: readonly string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await db.query("SELECT pg_notify($1, id) FROM unnest($2::text[]) AS id", [RECEIPTS_CHANNEL, accountIds]);
}
