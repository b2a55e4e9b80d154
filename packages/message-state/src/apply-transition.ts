import { idRange, newId } from "@sms/ids";
import { APPLY_FORWARD_TRANSITIONS, APPLY_TRANSITIONS } from "./apply-transitions.sql";
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
  id: string;
  current_status: MessageStatus | null;
  sequence: number | null;
  previous_status: MessageStatus | null;
  refunded: string | number;
}

/**
 * Moves a message to `to` if docs/messages.md#transitions allows it from its current status: the message
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
  const [result] = await applyTransitions(db, [input]);
  return result!;
}

/**
 * applyTransition for many messages in ONE statement (the same rules, row by row): one
 * result per input, in order. At most one change per message: a message named twice
 * throws, since the order of two changes of one row inside one statement is undefined.
 * Message rows are locked in id order, so concurrent batches never deadlock on them.
 */
export async function applyTransitions(
  db: Queryable,
  inputs: readonly TransitionInput[],
): Promise<TransitionResult[]> {
  if (inputs.length === 0) return [];
  if (new Set(inputs.map((input) => input.messageId)).size !== inputs.length)
    throw new Error("applyTransitions takes at most one change per message.");
  const eventTypes = inputs.map((input) => {
    if (allowedFrom(input.to).length === 0) throw new Error(`No message can move to ${input.to}.`);
    return outboxEventType(input.to);
  });
  // Unnamed: planned for its ids, so it reads only their weeks. A prepared statement's generic
  // plan reads every week: partitions are not pruned by `= ANY($1)` while running, only while
  // planning for the values (docs/decisions.md#partitions).
  const forward = inputs.every((input) => input.to === "sent" || input.to === "delivered");
  const ids = inputs.map((input) => input.messageId);
  const { first, last } = idRange(ids);
  const { rows } = await db.query<Row>({
    text: forward ? APPLY_FORWARD_TRANSITIONS : APPLY_TRANSITIONS,
    values: [
      ids,
      inputs.map((input) => input.to),
      inputs.map((input) => allowedFrom(input.to).join(",")),
      inputs.map((input) => input.at),
      inputs.map((input) => input.errorCode ?? null),
      inputs.map((input) => input.errorMessage ?? null),
      eventTypes.map((type) => (type ? newId("evt") : null)),
      eventTypes,
      first,
      last,
    ],
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return inputs.map((input): TransitionResult => {
    const row = byId.get(input.messageId);
    if (!row?.current_status) return { applied: false, currentStatus: null };
    if (row.sequence === null || row.previous_status === null)
      return { applied: false, currentStatus: row.current_status };
    return {
      applied: true,
      sequence: row.sequence,
      previousStatus: row.previous_status,
      refundedCredits: Number(row.refunded),
    };
  });
}
