import type pg from "pg";
import { Batcher, retryOnDeadlock } from "@sms/db";
import type { InboundPiece } from "./read-pdu";
import { storeInboundPiece, storeWholeInbounds, type InboundOutcome } from "./store";
import type { InboundHook, StoredInbound } from "./stored-inbound";

/** Where every inbound message enters, whichever way the carrier delivered it (SMPP or HTTP). */
export interface InboundIntake {
  /** Resolves once the piece is durable (committed); rejects when it is not, nothing stored. */
  store(
    carrierId: string,
    piece: InboundPiece,
  ): Promise<{ outcome: InboundOutcome; message: StoredInbound | null }>;
}

type Whole = { carrierId: string; piece: InboundPiece };

/**
 * Group commit of whole messages: those arriving while a transaction runs (a carrier's deliver_sm
 * window, many binds, HTTP posts) are stored together by the next, one statement per step; one
 * transaction per message held the intake near 250/s (docs/benchmarks.md#inbound). A part of a
 * concatenated message is stored alone, under its group's lock (reassembly, redelivered parts).
 */
export function createInboundIntake(
  pool: pg.Pool,
  onInbound?: InboundHook,
  options: { maxBatch?: number; maxConcurrent?: number } = {},
): InboundIntake {
  const storeAlone = (whole: Whole) =>
    storeWholeInbounds(pool, [whole], onInbound).then(([message]) => message ?? null, asError);
  const wholes = new Batcher<Whole, StoredInbound | null | Error>(
    async (batch) => {
      try {
        return await retryOnDeadlock(() => storeWholeInbounds(pool, batch, onInbound));
      } catch (error) {
        if (batch.length === 1) return [asError(error)];
        // One bad row fails the whole statement: stored one by one, only it is handed back.
        return Promise.all(batch.map(storeAlone));
      }
    },
    { maxBatch: options.maxBatch ?? 200, maxConcurrent: options.maxConcurrent ?? 2 },
  );
  return {
    async store(carrierId, piece) {
      if (piece.part) return storeInboundPiece(pool, carrierId, piece, onInbound);
      const message = await wholes.add({ carrierId, piece });
      if (message instanceof Error) throw message;
      if (message === null) return { outcome: "duplicate", message };
      return { outcome: message.accountId ? "assigned" : "unassigned", message };
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
