import type pg from "pg";
import type { InboundFlag } from "./read-pdu";

/** An inbound message as stored (inbound_messages), handed to the hook. */
export interface StoredInbound {
  id: string;
  /** null: nobody owns the destination number. */
  accountId: string | null;
  carrierId: string;
  from: string;
  to: string;
  text: string;
  encoding: string;
  segments: number;
  flags: InboundFlag[];
  receivedAt: Date;
}

/**
 * Runs inside the transaction that stores an inbound message, before the commit (and so before
 * the carrier is acknowledged): what it writes lands with the message or not at all. The opt-out
 * keywords (STOP/START: docs/decisions.md#opt-out) are wired here.
 */
export type InboundHook = (client: pg.PoolClient, message: StoredInbound) => Promise<void>;
