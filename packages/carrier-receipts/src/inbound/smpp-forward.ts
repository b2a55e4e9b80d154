import crypto from "node:crypto";
import type pg from "pg";
import { splitMessage, type SmsPart } from "@sms/sms-encoding";
import { EsmClass } from "@sms/smpp";
import { notifyReceiptsStored } from "@sms/customer-receipts";
import type { StoredInbound } from "./stored-inbound";

/**
 * Queues an assigned inbound message for the account's SMPP receiver/transceiver binds, in the
 * storing transaction: one smpp_inbound row per deliver_sm part (our encoder splits the text again,
 * GSM-7 or UCS-2 with an 8-bit concatenation UDH). Only for an account with SMPP credentials: an
 * account that never binds would keep them for ever. The smpp-server replicas are woken on the
 * receipts channel, whose handler sends receipts and inbound messages alike.
 */
export async function queueForSmppBinds(client: pg.PoolClient, message: StoredInbound): Promise<number> {
  if (!message.accountId) return 0;
  const parts = partsOf(message.text);
  // A text our encoder cannot split (over 255 parts): kept for the webhook and the API only.
  if (!parts) return 0;
  const { rowCount } = await client.query(
    `INSERT INTO smpp_inbound (account_id, inbound_id, part_seq, source_addr, destination_addr, esm_class, data_coding, short_message)
     SELECT $1, $2, p.seq, $3, $4, p.esm_class, p.data_coding, p.short_message
     FROM unnest($5::int[], $6::int[], $7::int[], $8::bytea[]) AS p(seq, esm_class, data_coding, short_message)
     WHERE EXISTS (SELECT 1 FROM smpp_credentials WHERE account_id = $1)`,
    [
      message.accountId,
      message.id,
      message.from,
      message.to,
      parts.map((_, i) => i + 1),
      parts.map((part) => (part.udh ? EsmClass.UDHI : 0)),
      parts.map((part) => part.dataCoding),
      parts.map((part) => part.shortMessage),
    ],
  );
  if ((rowCount ?? 0) > 0) await notifyReceiptsStored(client, [message.accountId]);
  return rowCount ?? 0;
}

function partsOf(text: string): SmsPart[] | null {
  try {
    return splitMessage(text, { reference: crypto.randomInt(256) });
  } catch {
    return null;
  }
}
