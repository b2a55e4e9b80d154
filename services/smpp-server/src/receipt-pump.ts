import type pg from "pg";
import { Batcher } from "@sms/db";
import type { Logger } from "@sms/logger";
import { CommandStatus, EsmClass, NotBoundError, type SmppServerSession } from "@sms/smpp";
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

/**
 * Writes pending receipts (smpp_receipts) as deliver_sm to the account's receiver and
 * transceiver binds: when a receipt is stored, when such a bind appears, and on every
 * sweep (retries, and receipts stored by another replica). A receipt is deleted only
 * after the customer answers ESME_ROK; anything else leaves it due again after retryMs.
 */
export class ReceiptPump {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly deletes: Batcher<string>;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly registry: SessionRegistry,
    private readonly metrics: ServerMetrics,
    private readonly logger: Logger,
    private readonly options: ReceiptPumpOptions,
  ) {
    this.deletes = new Batcher((ids) => deleteReceipts(pool, ids), { maxBatch: 1000, maxConcurrent: 2 });
  }

  /** Sends the account's due receipts if it has a bind to take them; at most one round per account at a time. */
  kick(accountId: string): void {
    if (this.stopped || this.registry.receivers(accountId).length === 0) return;
    if (this.running.has(accountId)) {
      this.again.add(accountId);
      return;
    }
    const round = this.drain(accountId)
      .catch((error: unknown) => {
        this.logger.warn("receipt round failed; retried on the next sweep", {
          account_id: accountId,
          error: String(error),
        });
      })
      .finally(() => {
        this.running.delete(accountId);
        if (this.again.delete(accountId)) this.kick(accountId);
      });
    this.running.set(accountId, round);
  }

  /** Kicks every account with a receiving bind. */
  sweep(): void {
    for (const accountId of this.registry.receivingAccounts()) this.kick(accountId);
  }

  /** Stops claiming and waits for the rounds in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running.values()]);
  }

  private async drain(accountId: string): Promise<void> {
    while (!this.stopped) {
      const sessions = this.registry.receivers(accountId);
      if (sessions.length === 0) return;
      const claimed = await claimReceipts(this.pool, accountId, this.options.claimSize, this.options.retryMs);
      if (claimed.length === 0) return;
      await Promise.all(
        claimed.map((receipt, index) => this.deliver(receipt, sessions[index % sessions.length]!)),
      );
    }
  }

  private async deliver(receipt: ClaimedReceipt, session: SmppServerSession): Promise<void> {
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
