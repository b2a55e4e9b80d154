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
        text: `SELECT s.id, s.account_id, s.message_id, s.registered_delivery, s.source_addr, s.destination_addr,
                      m.created_at, m.body
               FROM smpp_submits s JOIN messages m ON m.id = s.message_id
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

  return async function process(job: SmppReceiptJob): Promise<void> {
    if (!(await batcher.add(job)))
      // Written right after acceptance commits, so only a message a few ms old can be here
      // without them; one that never gets them (a crash in between) fails its retries and is logged.
      throw new SubmitRecordMissingError(`no smpp_submits rows for ${job.messageId} yet`);
  };
}
