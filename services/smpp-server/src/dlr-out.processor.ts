import type pg from "pg";
import { Batcher } from "@sms/db";
import type { SmppReceiptJob } from "@sms/queues";
import { buildReceiptText, isFinalStatus, wantsReceipt } from "./receipt-text";
import { insertReceipts, type ReceiptRow } from "./receipts.sql";

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

/** A final status whose submit records are not there (yet): the job fails and BullMQ retries it. */
export class SubmitRecordMissingError extends Error {
  override readonly name = "SubmitRecordMissingError";
}

/**
 * Turns smpp.dlr-out jobs into smpp_receipts rows, one per submit_sm id of the message
 * that asked for a receipt (a concatenated message has one per part). Jobs are written
 * in groups (group commit); `onStored` then wakes the sender for those accounts.
 */
export function createDlrOutProcessor(pool: pg.Pool, onStored: (accountIds: string[]) => void) {
  const batcher = new Batcher<SmppReceiptJob, boolean>(
    async (jobs) => {
      const finals = jobs.filter((job) => isFinalStatus(job.status));
      if (finals.length === 0) return jobs.map(() => true);
      const { rows } = await pool.query<SubmitOfMessage>({
        name: "smpp-submits-of-messages",
        // The body by a subquery per submit, not a join: with a join the planner hashed the whole
        // messages table whenever its statistics lagged the table's growth (20 ms a batch at 30,000
        // rows); a subquery is always one primary-key probe.
        text: `SELECT s.id, s.account_id, s.message_id, s.registered_delivery, s.source_addr, s.destination_addr,
                      s.created_at, (SELECT m.body FROM messages m WHERE m.id = s.message_id) AS body
               FROM smpp_submits s
               WHERE s.message_id = ANY($1::text[])`,
        values: [finals.map((job) => job.messageId)],
      });
      const byMessage = new Map<string, SubmitOfMessage[]>();
      for (const row of rows) byMessage.set(row.message_id, [...(byMessage.get(row.message_id) ?? []), row]);
      const receipts: ReceiptRow[] = [];
      const found = jobs.map((job) => {
        const status = job.status;
        if (!isFinalStatus(status)) return true;
        // account_id must match the job's: a receipt never crosses accounts, whatever a job says.
        const submits = (byMessage.get(job.messageId) ?? []).filter((s) => s.account_id === job.accountId);
        for (const submit of submits) {
          if (!wantsReceipt(submit.registered_delivery, status)) continue;
          const { text, messageState } = buildReceiptText({
            submitId: submit.id,
            status,
            errorCode: job.errorCode,
            submittedAt: submit.created_at,
            doneAt: new Date(job.occurredAt),
            body: submit.body,
          });
          receipts.push({
            eventId: job.eventId,
            accountId: job.accountId,
            submitId: submit.id,
            messageId: job.messageId,
            sourceAddr: submit.destination_addr,
            destinationAddr: submit.source_addr,
            messageState,
            text,
          });
        }
        return submits.length > 0;
      });
      await insertReceipts(pool, receipts);
      if (receipts.length) onStored([...new Set(receipts.map((r) => r.accountId))]);
      return found;
    },
    { maxBatch: 500, maxConcurrent: 2 },
  );

  /**
   * The last resort for a message whose submit record never appeared (records are now written in
   * the acceptance's own statement, so this should not happen; kept as a safety net): the receipt
   * the customer most likely asked for, under the message id it was given, addressed from the message.
   */
  async function receiptFromMessage(job: SmppReceiptJob): Promise<void> {
    if (!isFinalStatus(job.status)) return;
    const { rows } = await pool.query<{
      to_number: string;
      sender_id: string;
      created_at: Date;
      body: string;
    }>(
      "SELECT to_number, sender_id, created_at, body FROM messages WHERE id = $1 AND account_id = $2 AND source = 'smpp'",
      [job.messageId, job.accountId],
    );
    const message = rows[0];
    if (!message) return;
    const { text, messageState } = buildReceiptText({
      submitId: job.messageId,
      status: job.status,
      errorCode: job.errorCode,
      submittedAt: message.created_at,
      doneAt: new Date(job.occurredAt),
      body: message.body,
    });
    await insertReceipts(pool, [
      {
        eventId: job.eventId,
        accountId: job.accountId,
        submitId: job.messageId,
        messageId: job.messageId,
        sourceAddr: message.to_number.replace(/^\+/, ""),
        destinationAddr: message.sender_id,
        messageState,
        text,
      },
    ]);
    onStored([job.accountId]);
  }

  /** Processes one job; `isLastAttempt` lets a missing submit record fall back to the message row. */
  return async function process(job: SmppReceiptJob, isLastAttempt = false): Promise<void> {
    if (await batcher.add(job)) return;
    if (isLastAttempt) return receiptFromMessage(job);
    // Written with the message itself, so a record missing here is not expected (a concatenated
    // group linked a moment after its acceptance): BullMQ retries the job with back-off.
    throw new SubmitRecordMissingError(`no smpp_submits rows for ${job.messageId} yet`);
  };
}
