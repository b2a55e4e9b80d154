import type pg from "pg";
import { newId } from "@sms/ids";
import type { AssembledText } from "./assemble";
import { queueForSmppBinds } from "./smpp-forward";
import type { InboundHook, StoredInbound } from "./stored-inbound";

/** An inbound message to store: its text assembled, its destination not yet looked up. */
export interface NewInbound {
  carrierId: string;
  from: string;
  to: string;
  assembled: AssembledText;
  segments: number;
  /** The carrier's id for it (HTTP intake): the same id again from this carrier is a retry, not stored. */
  carrierMessageId?: string | null;
}

// Flags travel as one comma-joined string per row: unnest cannot take a ragged text[][].
const INSERT_MESSAGES = `
INSERT INTO inbound_messages (id, account_id, carrier_id, from_addr, to_addr, text, encoding, data_coding, segments, flags,
                              carrier_message_id)
SELECT t.id, n.account_id, t.carrier_id, t.from_addr, t.to_addr, t.text, t.encoding, t.data_coding, t.segments,
       string_to_array(t.flags, ','), t.carrier_message_id
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::text[],
            $10::text[])
  WITH ORDINALITY AS t(id, carrier_id, from_addr, to_addr, text, encoding, data_coding, segments, flags,
                       carrier_message_id, n)
LEFT JOIN inbound_numbers n ON n.number = t.to_addr
ORDER BY t.n
ON CONFLICT (carrier_id, carrier_message_id) DO NOTHING
RETURNING id, account_id, received_at`;

const INSERT_RECEIVED_EVENTS = `
INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
SELECT id, account_id, message_id, 'message.received', 1, payload::jsonb
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(id, account_id, message_id, payload)`;

/**
 * Stores inbound messages in the caller's transaction with one statement per step, however many
 * there are: the rows (each assigned to the account owning its destination number, if any), the
 * message.received outbox events of the assigned ones (signed, retried and subscribable like every
 * message.* event), their deliver_sm for the account's SMPP binds, then `onInbound` on each.
 * A message whose carrier id this carrier already used is not stored: null in its place.
 */
export async function insertInboundMessages(
  client: pg.PoolClient,
  messages: readonly NewInbound[],
  onInbound: InboundHook | undefined,
): Promise<Array<StoredInbound | null>> {
  if (messages.length === 0) return [];
  const ids = messages.map(() => newId("in"));
  const { rows } = await client.query<{ id: string; account_id: string | null; received_at: Date }>(
    INSERT_MESSAGES,
    [
      ids,
      messages.map((m) => m.carrierId),
      messages.map((m) => m.from),
      messages.map((m) => m.to),
      messages.map((m) => m.assembled.text),
      messages.map((m) => m.assembled.encoding),
      messages.map((m) => m.assembled.dataCoding),
      messages.map((m) => m.segments),
      messages.map((m) => m.assembled.flags.join(",")),
      messages.map((m) => m.carrierMessageId ?? null),
    ],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const results = messages.map((m, i): StoredInbound | null => {
    const row = byId.get(ids[i]!);
    if (!row) return null;
    return {
      id: row.id,
      accountId: row.account_id,
      carrierId: m.carrierId,
      from: m.from,
      to: m.to,
      text: m.assembled.text,
      encoding: m.assembled.encoding,
      segments: m.segments,
      flags: m.assembled.flags,
      receivedAt: row.received_at,
    };
  });
  const stored = results.filter((message) => message !== null);
  const assigned = stored.filter((message) => message.accountId !== null);
  if (assigned.length > 0) {
    await client.query(INSERT_RECEIVED_EVENTS, [
      assigned.map(() => newId("evt")),
      assigned.map((message) => message.accountId),
      assigned.map((message) => message.id),
      assigned.map((message) => JSON.stringify(receivedPayload(message))),
    ]);
    await queueForSmppBinds(client, assigned);
  }
  if (onInbound) for (const message of stored) await onInbound(client, message);
  return results;
}

/** The `data` of a message.received webhook (docs/webhooks.md#payload). */
export function receivedPayload(message: StoredInbound): Record<string, unknown> {
  return {
    from: message.from,
    to: message.to,
    text: message.text,
    encoding: message.encoding,
    segments: message.segments,
    received_at: message.receivedAt.toISOString(),
  };
}
