import type { Message, PrismaClient } from "@sms/db";
import { ApiError } from "@sms/errors";

/**
 * scheduled → canceled in one transaction: the conditional update (only a row
 * still 'scheduled' changes, so a race with the scheduler has one winner), the
 * history row, and the refund of the credits charged at acceptance.
 */
export async function cancelScheduledMessage(
  prisma: PrismaClient,
  accountId: string,
  messageId: string,
): Promise<Message> {
  return prisma.$transaction(async (tx) => {
    const updated = await tx.$queryRaw<Array<{ status_sequence: number; credits_charged: number }>>`
      UPDATE messages SET status = 'canceled', canceled_at = now(), updated_at = now(), status_sequence = status_sequence + 1
      WHERE id = ${messageId} AND account_id = ${accountId} AND status = 'scheduled'
      RETURNING status_sequence, credits_charged`;
    const row = updated[0];
    if (!row) {
      const existing = await tx.message.findFirst({
        where: { id: messageId, accountId },
        select: { status: true },
      });
      if (!existing) throw new ApiError("NOT_FOUND", "No message with this id exists for this account.");
      throw new ApiError(
        "NOT_CANCELABLE",
        `Only a scheduled message can be canceled; this one is ${existing.status}.`,
      );
    }
    await tx.messageEvent.create({
      data: { messageId, sequence: row.status_sequence, status: "canceled", previousStatus: "scheduled" },
    });
    if (row.credits_charged > 0) {
      const account = await tx.account.update({
        where: { id: accountId },
        data: { balance: { increment: row.credits_charged } },
      });
      await tx.creditLedgerEntry.create({
        data: {
          accountId,
          delta: BigInt(row.credits_charged),
          balanceAfter: account.balance,
          reason: "message_refund",
          messageId,
          note: "scheduled message canceled",
        },
      });
    }
    return tx.message.findUniqueOrThrow({ where: { id: messageId } });
  });
}
