import type pg from "pg";
import { CommandStatus, MessageState, type Pdu, type ServerResponse } from "@sms/smpp";
import { isFinalStatus, receiptState } from "@sms/customer-receipts";

interface SubmitStatusRow {
  status: string | null;
  error_code: string | null;
  failed_code: string | null;
  done_at: Date | null;
}

/** SMPP absolute time `YYMMDDhhmmsstnnp` in UTC (SMPP 3.4 §7.1.1). */
export function formatAbsoluteTime(date: Date): string {
  const two = (value: number) => String(value).padStart(2, "0");
  return `${two(date.getUTCFullYear() % 100)}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(
    date.getUTCHours(),
  )}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}000+`;
}

/**
 * query_sm (SMPP 3.4 §4.8): the state of a submit_sm id we returned, from our records, or of
 * one of the account's messages by its own id (the id REST, the dashboard and webhooks show for a
 * message reassembled from parts). An id of another account gets the same answer as an
 * unknown one (ESME_RQUERYFAIL).
 */
export function createQueryHandler(pool: pg.Pool) {
  return async function handleQuery(pdu: Pdu, accountId: string): Promise<ServerResponse> {
    const submitId = String(pdu.message_id ?? "");
    // Unnamed: planned for its id, so it reads one week of messages (docs/decisions.md#partitions).
    const { rows } = await pool.query<SubmitStatusRow>({
      text: `SELECT m.status, m.error_code, s.failed_code,
                    COALESCE(m.delivered_at, m.failed_at, m.canceled_at) AS done_at
             FROM smpp_submits s LEFT JOIN messages m ON m.id = s.message_id
             WHERE s.id = $1 AND s.account_id = $2
             UNION ALL
             SELECT m.status, m.error_code, NULL, COALESCE(m.delivered_at, m.failed_at, m.canceled_at)
             FROM messages m
             WHERE m.id = $1 AND m.account_id = $2 AND NOT EXISTS (SELECT 1 FROM smpp_submits s WHERE s.id = $1)
             LIMIT 1`,
      values: [submitId, accountId],
    });
    const row = rows[0];
    if (!row) return { status: CommandStatus.ESME_RQUERYFAIL };
    let state: number = MessageState.ENROUTE;
    if (row.failed_code) state = receiptState("failed", row.failed_code).state;
    else if (row.status && isFinalStatus(row.status)) state = receiptState(row.status, row.error_code).state;
    return {
      fields: {
        message_id: submitId,
        final_date: row.done_at ? formatAbsoluteTime(row.done_at) : "",
        message_state: state,
        error_code: 0,
      },
    };
  };
}
