import type pg from "pg";
import type { Message, PrismaClient } from "@sms/db";
import { ApiError } from "@sms/errors";
import { applyTransition } from "@sms/message-state";

/**
 * scheduled → canceled through the state machine (@sms/message-state): one transaction
 * with the conditional update (a race with the scheduler has one winner), the history
 * row and the refund of the credits charged at acceptance.
 */
export async function cancelScheduledMessage(
  prisma: PrismaClient,
  pool: pg.Pool,
  accountId: string,
  messageId: string,
): Promise<Message> {
  const owned = await prisma.message.findFirst({ where: { id: messageId, accountId }, select: { id: true } });
  if (!owned) throw new ApiError("NOT_FOUND", "No message with this id exists for this account.");
  const result = await applyTransition(pool, { messageId, to: "canceled", at: new Date() });
  if (!result.applied) {
    throw new ApiError(
      "NOT_CANCELABLE",
      `Only a scheduled message can be canceled; this one is ${result.currentStatus}.`,
    );
  }
  return prisma.message.findUniqueOrThrow({ where: { id: messageId } });
}
