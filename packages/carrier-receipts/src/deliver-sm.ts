import type pg from "pg";
import { Batcher, PIPELINE_WRITE_LINGER_MS } from "@sms/db";
import type { Logger } from "@sms/logger";
import { CommandStatus, EsmClass, parseReceipt, parseReceiptDate, type DeliverSm } from "@sms/smpp";
import { applyReceipts, type ReceiptInput, type ReceiptResult } from "./apply-receipt";
import { doneDateHasSeconds } from "./done-date";
import { readInboundPdu } from "./inbound/read-pdu";
import { createInboundIntake, type InboundIntake } from "./inbound/intake";
import type { InboundHook } from "./inbound/stored-inbound";

/** Handles one deliver_sm of a carrier; deliver_sm_resp carries what it returns (or ESME_RX_T_APPN when it throws). */
export type DeliverSmHandler = (carrierId: string, pdu: DeliverSm) => Promise<number | void>;

/**
 * The counters a receipt intake reports (@sms/metrics ReceiptIngestMetrics has them), named
 * structurally so this package needs no metrics registry of its own.
 */
export interface DeliverSmCounters {
  deliverSm: { inc(labels: { kind: string; carrier_id: string }): void };
  receiptsStored: { inc(labels: { source: string; outcome: string }): void };
  receiptErrors: { inc(labels: { source: string }): void };
  /** Inbound deliver_sm by outcome: assigned, unassigned, part_waiting, duplicate_part, error. */
  inbound: { inc(labels: { outcome: string }): void };
}

export interface DeliverSmDeps {
  pool: pg.Pool;
  logger: Logger;
  metrics: DeliverSmCounters;
  /** True once shutdown began: receipts are handed back to the carrier. */
  isStopping: () => boolean;
  /** The process that stores them (carrier_receipts.received_by), host:pid. */
  receivedBy: string;
  /** Runs in the transaction storing each inbound message (the opt-out keywords: docs/decisions.md#opt-out). */
  onInbound?: InboundHook;
  /** Shared with another intake of the process (dlr-ingest's HTTP endpoint); by default one of its own with `onInbound`. */
  inbound?: InboundIntake;
}

/**
 * Applies each receipt a carrier delivers and answers only after the commit: ESME_ROK
 * once it is stored (whatever it did: applied, ignored or unmatched), and an exception
 * (the SMPP client answers ESME_RX_T_APPN) when the database failed, so that the carrier
 * delivers it again later (SMPP 3.4 §5.1.3; receipts are at least once, duplicates are
 * ignored). A deliver_sm that is not a receipt is an inbound message: stored (its parts
 * reassembled in PostgreSQL, whichever bind they came on) and acknowledged after the commit too.
 * dlr-ingest runs it on receiver binds and the dispatcher on transceiver binds
 * (docs/decisions.md#transceiver-binds): the same code, so a receipt is stored the same way
 * whichever bind it came on.
 */
export function createDeliverSmHandler(deps: DeliverSmDeps): DeliverSmHandler {
  const { pool, logger, metrics, receivedBy } = deps;
  // Group commit: receipts arriving together (a carrier's deliver_sm window) share one
  // transaction. One autocommit per receipt exhausted the pool under load and the
  // carrier's redeliveries made it worse.
  const batch = new Batcher<ReceiptInput, ReceiptResult>((inputs) => applyReceipts(pool, inputs), {
    maxBatch: 200,
    maxConcurrent: 2,
    lingerMs: PIPELINE_WRITE_LINGER_MS,
  });
  const count = (kind: string, carrierId: string) => metrics.deliverSm.inc({ kind, carrier_id: carrierId });
  const inbound = deps.inbound ?? createInboundIntake(pool, deps.onInbound);
  const storeInbound = async (carrierId: string, pdu: DeliverSm): Promise<number> => {
    const piece = readInboundPdu(pdu);
    try {
      const { outcome, message } = await inbound.store(carrierId, piece);
      metrics.inbound.inc({ outcome });
      // Never the text or the numbers in logs: inbound content is the subscriber's.
      logger.debug("inbound stored", {
        carrier_id: carrierId,
        outcome,
        inbound_id: message?.id,
        flags: message?.flags,
      });
      if (message && message.flags.length > 0)
        logger.warn("inbound message stored with flags", {
          carrier_id: carrierId,
          inbound_id: message.id,
          flags: message.flags,
        });
      return CommandStatus.ESME_ROK;
    } catch (error) {
      metrics.inbound.inc({ outcome: "error" });
      logger.error("inbound message not stored; asking the carrier to redeliver", {
        carrier_id: carrierId,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  };
  return async (carrierId, pdu) => {
    // Handed back, not dropped: the carrier redelivers to another replica or after the restart.
    if (deps.isStopping()) {
      count("refused_shutting_down", carrierId);
      return CommandStatus.ESME_RX_T_APPN;
    }
    const receipt = parseReceipt(pdu);
    if (!receipt) {
      const claimsReceipt = (pdu.esm_class & EsmClass.MESSAGE_TYPE_MASK) === EsmClass.DELIVERY_RECEIPT;
      if (!claimsReceipt) {
        count("mo", carrierId);
        return storeInbound(carrierId, pdu);
      }
      logger.warn("unreadable delivery receipt acknowledged and dropped", { carrier_id: carrierId });
      count("unreadable_receipt", carrierId);
      return CommandStatus.ESME_ROK;
    }
    count("receipt", carrierId);
    try {
      const result = await batch.add({
        carrierId,
        carrierMessageId: receipt.messageId,
        state: receipt.state,
        errorCode: receipt.err,
        doneAt: parseReceiptDate(receipt.doneDate),
        doneAtHasSeconds: doneDateHasSeconds(receipt.doneDate),
        raw: rawOf(pdu, receipt),
        receivedBy,
      });
      metrics.receiptsStored.inc({ source: "smpp", outcome: result.outcome });
      logger.debug("receipt stored", {
        carrier_id: carrierId,
        carrier_message_id: receipt.messageId,
        state: receipt.state,
        outcome: result.outcome,
        message_id: result.messageId,
      });
      return CommandStatus.ESME_ROK;
    } catch (error) {
      metrics.receiptErrors.inc({ source: "smpp" });
      logger.error("receipt not stored; asking the carrier to redeliver", {
        carrier_id: carrierId,
        carrier_message_id: receipt.messageId,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  };
}

/** What carrier_receipts.raw keeps of a deliver_sm: the receipt fields, never the quoted message text. */
function rawOf(
  pdu: DeliverSm,
  receipt: NonNullable<ReturnType<typeof parseReceipt>>,
): Record<string, unknown> {
  return {
    source: "smpp",
    esm_class: pdu.esm_class,
    receipted_message_id: pdu.receipted_message_id,
    message_state: receipt.messageState,
    stat: receipt.stat,
    err: receipt.err,
    sub: receipt.sub,
    dlvrd: receipt.dlvrd,
    submit_date: receipt.submitDate,
    done_date: receipt.doneDate,
  };
}
