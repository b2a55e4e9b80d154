import { newId } from "@sms/ids";
import { APPLY_TRANSITION } from "./apply-transition.sql";
import type { Queryable } from "./queryable";
import { allowedFrom, outboxEventType, type MessageStatus } from "./transitions";

/** One status change of one message. */
export interface TransitionInput {
  messageId: string;
  to: MessageStatus;
  /** When it happened (submit response, receipt's done date, …): stored as sent_at/delivered_at/… and in the history. */
  at: Date;
  /** Why it failed (e.g. `SMPP_ESME_RINVDSTADR`, a receipt's `err:`); stored on the message, the history and the event. */
  errorCode?: string | null;
  errorMessage?: string | null;
}

export type TransitionResult =
  | {
      applied: true;
      /** The message's new status_sequence (the history row's and the event's `sequence`). */
      sequence: number;
      previousStatus: MessageStatus;
      /** Credits returned to the account by this change (0 when none). */
      refundedCredits: number;
    }
  | {
      applied: false;
      /** The status that refused the change; null when no message has this id. */
      currentStatus: MessageStatus | null;
    };

interface Row {
  current_status: MessageStatus;
  sequence: number | null;
  previous_status: MessageStatus | null;
  refunded: number;
}

/**
 * Moves a message to `to` if DESIGN §4 allows it from its current status: the message
 * row, one history row, one outbox event (message.queued/sent/delivered/failed), a
 * dispatch_outbox row when it becomes queued, and the refund of its credits when it
 * fails before any segment reached a carrier (or is canceled), all in ONE statement.
 * A backward, duplicate or late change does nothing and returns `applied: false`; the
 * caller records it where it belongs (a receipt in carrier_receipts as 'ignored').
 *
 * `db` is a pool (the statement is its own transaction) or the caller's PoolClient
 * (it commits or rolls back with the caller's transaction).
 */
export async function applyTransition(db: Queryable, input: TransitionInput): Promise<TransitionResult> {
  const from = allowedFrom(input.to);
  if (from.length === 0) throw new Error(`No message can move to ${input.to}.`);
  const eventType = outboxEventType(input.to);
  const { rows } = await db.query<Row>({
    name: "message-state-apply-transition",
    text: APPLY_TRANSITION,
    values: [
      input.messageId,
      input.to,
      from,
      input.at,
      input.errorCode ?? null,
      input.errorMessage ?? null,
      eventType ? newId("evt") : null,
      eventType,
    ],
  });
  const row = rows[0];
  if (!row) return { applied: false, currentStatus: null };
  if (row.sequence === null || row.previous_status === null)
    return { applied: false, currentStatus: row.current_status };
  return {
    applied: true,
    sequence: row.sequence,
    previousStatus: row.previous_status,
    refundedCredits: Number(row.refunded),
  };
}
