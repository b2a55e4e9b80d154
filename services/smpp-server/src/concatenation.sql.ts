import type pg from "pg";
import { inTransaction } from "@sms/db";

/** One part of a message the customer split itself, as it arrived. */
export interface IncomingPart {
  id: string;
  accountId: string;
  concatKey: string;
  seq: number;
  total: number;
  dataCoding: number;
  octets: Buffer;
  registeredDelivery: number;
  sourceAddr: string;
  destinationAddr: string;
}

/** A stored part of a group that is now complete. */
export interface StoredPart {
  id: string;
  seq: number;
  dataCoding: number;
  octets: Buffer;
}

/**
 * Stores a part durably (it is acknowledged with ESME_ROK once this resolves) and, when
 * it completes its group, claims the group's parts and returns them in order. Claiming
 * renames the group's key so a later message reusing the same reference starts afresh.
 * An advisory lock per group serializes parts arriving at once on several binds.
 */
export async function storePart(
  pool: pg.Pool,
  part: IncomingPart,
): Promise<{ claimedKey: string; parts: StoredPart[] } | null> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 6))", [
      `${part.accountId}|${part.concatKey}`,
    ]);
    await client.query(
      `INSERT INTO smpp_submits (id, account_id, registered_delivery, source_addr, destination_addr,
                                 concat_key, part_seq, part_total, data_coding, part_bytes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        part.id,
        part.accountId,
        part.registeredDelivery,
        part.sourceAddr,
        part.destinationAddr,
        part.concatKey,
        part.seq,
        part.total,
        part.dataCoding,
        part.octets,
      ],
    );
    const { rows } = await client.query<{ id: string; seq: number; data_coding: number; octets: Buffer }>(
      `SELECT DISTINCT ON (part_seq) id, part_seq AS seq, data_coding, part_bytes AS octets
       FROM smpp_submits
       WHERE account_id = $1 AND concat_key = $2 AND part_total = $3 AND message_id IS NULL AND failed_code IS NULL
       ORDER BY part_seq, created_at DESC`,
      [part.accountId, part.concatKey, part.total],
    );
    if (rows.length < part.total) return null;
    const claimedKey = `${part.concatKey}#${part.id}`;
    await client.query(
      `UPDATE smpp_submits SET concat_key = $3
       WHERE account_id = $1 AND concat_key = $2 AND message_id IS NULL AND failed_code IS NULL`,
      [part.accountId, part.concatKey, claimedKey],
    );
    return {
      claimedKey,
      parts: rows.map((row) => ({
        id: row.id,
        seq: row.seq,
        dataCoding: row.data_coding,
        octets: row.octets,
      })),
    };
  });
}

/** The whole message was accepted: every submit id of the group now names it. */
export async function completeGroup(pool: pg.Pool, accountId: string, claimedKey: string, messageId: string) {
  await pool.query("UPDATE smpp_submits SET message_id = $3 WHERE account_id = $1 AND concat_key = $2", [
    accountId,
    claimedKey,
    messageId,
  ]);
}

/** The group could not become a message: its parts are failed with `code` and returned for receipts. */
export async function failGroup(
  pool: pg.Pool,
  where: { accountId: string; claimedKey: string },
  code: string,
): Promise<FailedPart[]> {
  const { rows } = await pool.query<FailedPart>(
    `UPDATE smpp_submits SET failed_code = $3
     WHERE account_id = $1 AND concat_key = $2 AND message_id IS NULL
     RETURNING ${FAILED_COLUMNS}`,
    [where.accountId, where.claimedKey, code],
  );
  return rows;
}

/**
 * Parts still waiting for their group after `timeoutMs`: failed with INCOMPLETE and returned
 * for receipts. Claimed groups (key ending in `#<claiming part id>`) are left alone: their
 * message may well have been accepted.
 */
export async function failStaleParts(pool: pg.Pool, timeoutMs: number): Promise<FailedPart[]> {
  const { rows } = await pool.query<FailedPart>(
    `UPDATE smpp_submits SET failed_code = 'INCOMPLETE'
     WHERE id IN (SELECT id FROM smpp_submits
                  WHERE concat_key IS NOT NULL AND message_id IS NULL AND failed_code IS NULL
                    AND concat_key !~ '#msg_[0-9A-Z]{26}$'
                    AND created_at < now() - make_interval(secs => $1::double precision / 1000)
                  LIMIT 1000 FOR UPDATE SKIP LOCKED)
     RETURNING ${FAILED_COLUMNS}`,
    [timeoutMs],
  );
  return rows;
}

const FAILED_COLUMNS = `id, account_id AS "accountId", registered_delivery AS "registeredDelivery",
  source_addr AS "sourceAddr", destination_addr AS "destinationAddr", created_at AS "createdAt", failed_code AS "failedCode"`;

/** A part that will never be part of a message. */
export interface FailedPart {
  id: string;
  accountId: string;
  registeredDelivery: number;
  sourceAddr: string;
  destinationAddr: string;
  createdAt: Date;
  failedCode: string;
}
