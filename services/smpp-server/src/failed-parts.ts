import type pg from "pg";
import { buildReceiptText, insertReceipts, wantsReceipt } from "@sms/customer-receipts";
import type { FailedPart } from "./concatenation.sql";

/**
 * Receipts for parts that were acknowledged but never became a message (the group
 * timed out incomplete, or the whole text was refused): the customer learns about
 * every submit_sm it sent, under the id we returned for it.
 */
export async function storeFailedPartReceipts(pool: pg.Pool, parts: FailedPart[]): Promise<string[]> {
  const now = new Date();
  const rows = parts
    .filter((part) => wantsReceipt(part.registeredDelivery, "failed"))
    .map((part) => {
      const { text, messageState } = buildReceiptText({
        submitId: part.id,
        status: "failed",
        errorCode: part.failedCode,
        submittedAt: part.createdAt,
        doneAt: now,
        body: null,
      });
      return {
        eventId: `part:${part.id}`,
        accountId: part.accountId,
        submitId: part.id,
        messageId: null,
        sourceAddr: part.destinationAddr,
        destinationAddr: part.sourceAddr,
        messageState,
        text,
      };
    });
  await insertReceipts(pool, rows);
  return [...new Set(rows.map((row) => row.accountId))];
}
