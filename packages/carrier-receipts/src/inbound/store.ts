import type pg from "pg";
import { inTransaction } from "@sms/db";
import { assembleText, type StoredPart } from "./assemble";
import type { InboundFlag, InboundPiece } from "./read-pdu";
import { insertInboundMessages } from "./insert-messages";
import type { InboundHook, StoredInbound } from "./stored-inbound";

/** duplicate: a message posted again with a carrier message id already stored (HTTP intake). */
export type InboundOutcome = "assigned" | "unassigned" | "part_waiting" | "duplicate_part" | "duplicate";

// One advisory lock per group, in its own key space: parts of one message arriving together on
// several binds (or replicas) are stored one after the other, so exactly one sees the group whole.
const LOCK_GROUP = "SELECT pg_advisory_xact_lock(16016, hashtext($1))";
const GROUP = `carrier_id = $1 AND source_addr = $2 AND destination_addr = $3 AND reference = $4 AND total = $5`;

/** Stores one deliver_sm's worth: a whole message, or a part (and the message once it completes a group). */
export async function storeInboundPiece(
  pool: pg.Pool,
  carrierId: string,
  piece: InboundPiece,
  onInbound?: InboundHook,
): Promise<{ outcome: InboundOutcome; message: StoredInbound | null }> {
  return inTransaction(pool, async (client) => {
    const part = piece.part;
    if (!part) {
      const assembled = assembleText(
        [{ seq: 1, dataCoding: piece.dataCoding, payload: piece.payload }],
        piece.flags,
      );
      const message = await insertMessage(client, carrierId, piece.from, piece.to, assembled, 1, onInbound);
      return { outcome: message.accountId ? "assigned" : "unassigned", message };
    }
    const group = [carrierId, piece.from, piece.to, part.reference, part.total] as const;
    await client.query(LOCK_GROUP, [JSON.stringify(group)]);
    // A part already here (waiting, or in a message already stored) is a carrier's redelivery.
    const inserted = await client.query(
      `INSERT INTO inbound_parts (carrier_id, source_addr, destination_addr, reference, total, seq, data_coding, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
      [...group, part.seq, piece.dataCoding, piece.payload],
    );
    if (inserted.rowCount === 0) return { outcome: "duplicate_part", message: null };
    const parts = await waitingParts(client, group);
    if (parts.length < part.total) return { outcome: "part_waiting", message: null };
    const message = await completeGroup(client, group, parts, [], onInbound);
    return { outcome: message.accountId ? "assigned" : "unassigned", message };
  });
}

/**
 * Stores whole (single-part) messages, however many, in ONE transaction: the group commit of the
 * inbound path. A part of a concatenated message goes through storeInboundPiece (its group lock).
 */
export async function storeWholeInbounds(
  pool: pg.Pool,
  pieces: ReadonlyArray<{ carrierId: string; piece: InboundPiece }>,
  onInbound?: InboundHook,
): Promise<Array<StoredInbound | null>> {
  return inTransaction(pool, (client) =>
    insertInboundMessages(
      client,
      pieces.map(({ carrierId, piece }) => ({
        carrierId,
        from: piece.from,
        to: piece.to,
        assembled: assembleText(
          [{ seq: 1, dataCoding: piece.dataCoding, payload: piece.payload }],
          piece.flags,
        ),
        segments: 1,
        carrierMessageId: piece.carrierMessageId,
      })),
      onInbound,
    ),
  );
}

type GroupKey = readonly [carrierId: string, from: string, to: string, reference: number, total: number];

async function waitingParts(client: pg.PoolClient, group: GroupKey): Promise<StoredPart[]> {
  const { rows } = await client.query<{ seq: number; data_coding: number; payload: Buffer }>(
    `SELECT seq, data_coding, payload FROM inbound_parts WHERE ${GROUP} AND inbound_id IS NULL ORDER BY seq`,
    [...group],
  );
  return rows.map((row) => ({ seq: row.seq, dataCoding: row.data_coding, payload: row.payload }));
}

async function completeGroup(
  client: pg.PoolClient,
  group: GroupKey,
  parts: StoredPart[],
  flags: InboundFlag[],
  onInbound: InboundHook | undefined,
): Promise<StoredInbound> {
  const [carrierId, from, to] = group;
  const message = await insertMessage(
    client,
    carrierId,
    from,
    to,
    assembleText(parts, flags),
    parts.length,
    onInbound,
  );
  // Kept, marked, until the purge: a part redelivered meanwhile is recognised as one.
  await client.query(`UPDATE inbound_parts SET inbound_id = $6 WHERE ${GROUP} AND inbound_id IS NULL`, [
    ...group,
    message.id,
  ]);
  return message;
}

async function insertMessage(
  client: pg.PoolClient,
  carrierId: string,
  from: string,
  to: string,
  assembled: ReturnType<typeof assembleText>,
  segments: number,
  onInbound: InboundHook | undefined,
): Promise<StoredInbound> {
  const [message] = await insertInboundMessages(
    client,
    [{ carrierId, from, to, assembled, segments }],
    onInbound,
  );
  return message!;
}

/**
 * Stores the groups whose first part came more than `olderThanMs` ago and that are still not
 * whole: what arrived, in order, flagged `incomplete`. Safe on every replica (the group lock).
 */
export async function completeTimedOutGroups(
  pool: pg.Pool,
  options: { olderThanMs: number; limit?: number },
  onInbound?: InboundHook,
): Promise<StoredInbound[]> {
  const { rows } = await pool.query<{
    carrier_id: string;
    source_addr: string;
    destination_addr: string;
    reference: number;
    total: number;
  }>(
    `SELECT carrier_id, source_addr, destination_addr, reference, total FROM inbound_parts
     WHERE inbound_id IS NULL
     GROUP BY carrier_id, source_addr, destination_addr, reference, total
     HAVING min(received_at) < now() - make_interval(secs => $1::double precision / 1000)
     LIMIT $2`,
    [options.olderThanMs, options.limit ?? 100],
  );
  const stored: StoredInbound[] = [];
  for (const row of rows) {
    const group = [row.carrier_id, row.source_addr, row.destination_addr, row.reference, row.total] as const;
    const message = await inTransaction(pool, async (client) => {
      await client.query(LOCK_GROUP, [JSON.stringify(group)]);
      // Read again under the lock: the last part may have completed it meanwhile.
      const parts = await waitingParts(client, group);
      if (parts.length === 0) return null;
      return completeGroup(client, group, parts, ["incomplete"], onInbound);
    });
    if (message) stored.push(message);
  }
  return stored;
}

/** Deletes parts of stored messages older than `olderThanMs` (past which a redelivery is no longer recognised). */
export async function purgeStoredParts(pool: pg.Pool, olderThanMs: number): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM inbound_parts WHERE inbound_id IS NOT NULL
     AND received_at < now() - make_interval(secs => $1::double precision / 1000)`,
    [olderThanMs],
  );
  return rowCount ?? 0;
}
