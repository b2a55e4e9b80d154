import type pg from "pg";
import { Batcher } from "@sms/db";
import type { SmppReceiptJob } from "@sms/queues";
import {
  buildReceiptText,
  insertReceipts,
  isFinalStatus,
  notifyReceiptsStored,
  storeReceiptsFor,
} from "@sms/customer-receipts";

/** A final status whose submit records are not there (yet): the job fails and BullMQ retries it. */
export class SubmitRecordMissingError extends Error {
  override readonly name = "SubmitRecordMissingError";
}

/**
 * Consumes smpp.dlr-out jobs: the outbox relay writes receipts in its own transaction and
 * queues a job only for a final event whose message had no submit record yet (a
 * concatenated group linked a moment after its acceptance), and older relays queued one
 * per event. Jobs are stored in groups (group commit); `onStored` then wakes the sender
 * for those accounts, and every other replica hears of them by notification.
 */
export function createDlrOutProcessor(pool: pg.Pool, onStored: (accountIds: string[]) => void) {
  const batcher = new Batcher<SmppReceiptJob, boolean>(
    async (jobs) => {
      const { found, accountIds } = await storeReceiptsFor(pool, jobs);
      if (accountIds.length) {
        await notifyReceiptsStored(pool, accountIds);
        onStored(accountIds);
      }
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
