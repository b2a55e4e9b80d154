import type pg from "pg";
import { Batcher } from "@sms/db";
import type { Logger } from "@sms/logger";
import { CommandStatus, EsmClass, NotBoundError, type SmppServerSession } from "@sms/smpp";
import { AccountPump } from "./account-pump";
import type { ServerMetrics } from "./metrics";
import { claimReceipts, deleteReceipts, releaseReceipts, type ClaimedReceipt } from "./receipts.sql";
import type { SessionRegistry } from "./sessions";

/** IA5 (ASCII): the receipt text is ASCII, and GSM-7 would turn the "_" of our ids into "§". */
const DATA_CODING_IA5 = 0x01;
/** TON international, NPI E.164 for the handset; unknown/unknown for the customer's sender. */
const TON_INTERNATIONAL = 1;
const NPI_E164 = 1;

export interface ReceiptPumpOptions {
  /** Receipts claimed per round per account. */
  claimSize: number;
  /** An unacknowledged receipt is due again after this long, ms. */
  retryMs: number;
}

/** Writes pending receipts (smpp_receipts) as deliver_sm to the account's receiving binds (AccountPump). */
export class ReceiptPump extends AccountPump<ClaimedReceipt> {
  private readonly deletes: Batcher<string>;

  constructor(
    private readonly pool: pg.Pool,
    registry: SessionRegistry,
    private readonly metrics: ServerMetrics,
    logger: Logger,
    private readonly options: ReceiptPumpOptions,
  ) {
    super(registry, logger, "receipt");
    this.deletes = new Batcher((ids) => deleteReceipts(pool, ids), { maxBatch: 1000, maxConcurrent: 2 });
  }

  protected claim(accountId: string): Promise<ClaimedReceipt[]> {
    return claimReceipts(this.pool, accountId, this.options.claimSize, this.options.retryMs);
  }

  protected async deliver(receipt: ClaimedReceipt, session: SmppServerSession): Promise<void> {
    try {
      const response = await session.deliver({
        source_addr_ton: TON_INTERNATIONAL,
        source_addr_npi: NPI_E164,
        source_addr: receipt.sourceAddr,
        destination_addr: receipt.destinationAddr,
        esm_class: EsmClass.DELIVERY_RECEIPT,
        data_coding: DATA_CODING_IA5,
        short_message: Buffer.from(receipt.text, "latin1"),
        receipted_message_id: receipt.submitId,
        message_state: receipt.messageState,
      });
      if (response.command_status !== CommandStatus.ESME_ROK) {
        this.metrics.receiptsRefused.inc();
        return;
      }
      await this.deletes.add(receipt.id);
      this.metrics.receiptsDelivered.inc();
    } catch (error) {
      // Never written (the bind went first): due again at once, for the next bind to take.
      if (error instanceof NotBoundError)
        return releaseReceipts(this.pool, [receipt.id]).catch(() => undefined);
      // No answer: the claim lapses after retryMs and the receipt is sent again.
      this.metrics.receiptsUnanswered.inc();
    }
  }
}
