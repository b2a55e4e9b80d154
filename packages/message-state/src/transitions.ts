import type { MessageStatus as DbMessageStatus } from "@sms/db";

/** Every status a message can have (docs/messages.md#states), in lifecycle order. */
export const MESSAGE_STATUSES = ["scheduled", "queued", "sent", "delivered", "failed", "canceled"] as const;

export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

// Compile-time guard: this list and the database enum name the same statuses.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _sameStatuses: Same<MessageStatus, DbMessageStatus> = true;
void _sameStatuses;

/**
 * The allowed moves (docs/messages.md#transitions). `queued → delivered | failed` is there because a
 * receipt can be applied before the submit response is recorded (it must still apply);
 * `scheduled → failed` because a message whose validity ended before it was due (or while
 * the scheduler was behind) fails EXPIRED without ever being queued (docs/messages.md#validity). Nothing
 * ever moves backwards, and terminal states have no way out.
 */
const NEXT: Readonly<Record<MessageStatus, readonly MessageStatus[]>> = {
  scheduled: ["queued", "canceled", "failed"],
  queued: ["sent", "delivered", "failed"],
  sent: ["delivered", "failed"],
  delivered: [],
  failed: [],
  canceled: [],
};

/** True when a message in `from` may move to `to`. A status never moves to itself. */
export function canTransition(from: MessageStatus, to: MessageStatus): boolean {
  return NEXT[from].includes(to);
}

/** True for delivered, failed and canceled: the status never changes again. */
export function isTerminal(status: MessageStatus): boolean {
  return NEXT[status].length === 0;
}

/** The statuses from which a message may move to `to` (the guard of the conditional UPDATE). */
export function allowedFrom(to: MessageStatus): MessageStatus[] {
  return MESSAGE_STATUSES.filter((from) => canTransition(from, to));
}

/** True when `value` is one of the statuses. */
export function isMessageStatus(value: unknown): value is MessageStatus {
  return typeof value === "string" && (MESSAGE_STATUSES as readonly string[]).includes(value);
}

/**
 * The webhook/SMPP-receipt event a move to `to` publishes, or null. The interface
 * defines message.queued, .sent, .delivered and .failed only: a cancel is the
 * customer's own act, answered synchronously, so it publishes nothing.
 */
export function outboxEventType(to: MessageStatus): string | null {
  switch (to) {
    case "queued":
    case "sent":
    case "delivered":
    case "failed":
      return `message.${to}`;
    default:
      return null;
  }
}

/**
 * True when a move to `to` may return the message's credits: a failure (only if no
 * segment reached a carrier, checked in the database) or a cancel (docs/messages.md#credits).
 */
export function mayRefund(to: MessageStatus): boolean {
  return to === "failed" || to === "canceled";
}
