import crypto from "node:crypto";
import type pg from "pg";
import { splitMessage, type SmsPart } from "@sms/sms-encoding";
import { EsmClass } from "@sms/smpp";
import { notifyReceiptsStored } from "@sms/customer-receipts";
import type { StoredInbound } from "./stored-inbound";

/**
 * Queues assigned inbound messages for their accounts' SMPP receiver/transceiver binds, in the
 * storing transaction: one smpp_inbound row per deliver_sm part (our encoder splits the text again,
 * GSM-7 or UCS-2 with an 8-bit concatenation UDH). Only for accounts with SMPP credentials: an
 * account that never binds would keep them for ever. One look-up, one insert and one notification
 * however many messages: the smpp-server replicas are woken on the receipts channel, whose handler
 * sends receipts and inbound messages alike. Returns the number of parts queued.
 */
export async function queueForSmppBinds(
  client: pg.PoolClient,
  messages: readonly StoredInbound[],
): Promise<number> {
  const accountIds = [
    ...new Set(messages.flatMap((message) => (message.accountId ? [message.accountId] : []))),
  ];
  if (accountIds.length === 0) return 0;
  // Most accounts never bind over SMPP: they cost this look-up and no split.
  const { rows: binders } = await client.query<{ account_id: string }>(
    "SELECT account_id FROM smpp_credentials WHERE account_id = ANY($1::text[])",
    [accountIds],
  );
  const bindsOver = new Set(binders.map((row) => row.account_id));
  const rows = messages.flatMap((message) =>
    message.accountId && bindsOver.has(message.accountId)
      ? (partsOf(message.text) ?? []).map((part, i) => ({ message, part, seq: i + 1 }))
      : [],
  );
  if (rows.length === 0) return 0;
  await client.query(
    `INSERT INTO smpp_inbound (account_id, inbound_id, part_seq, source_addr, destination_addr, esm_class, data_coding, short_message)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bytea[])`,
    [
      rows.map((row) => row.message.accountId),
      rows.map((row) => row.message.id),
      rows.map((row) => row.seq),
      rows.map((row) => row.message.from),
      rows.map((row) => row.message.to),
      rows.map((row) => (row.part.udh ? EsmClass.UDHI : 0)),
      rows.map((row) => row.part.dataCoding),
      rows.map((row) => row.part.shortMessage),
    ],
  );
  await notifyReceiptsStored(client, [...new Set(rows.map((row) => row.message.accountId!))]);
  return rows.length;
}

/** A text our encoder cannot split (over 255 parts) is kept for the webhook and the API only. */
function partsOf(text: string): SmsPart[] | null {
  try {
    return splitMessage(text, { reference: crypto.randomInt(256) });
  } catch {
    return null;
  }
}
