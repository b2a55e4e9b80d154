import {
  CommandStatus,
  EsmClass,
  formatReceiptText,
  type PduFields,
  type SmppServerSession,
} from "@sms/smpp";
import type { ReceivedMessage } from "./message-log";
import type { ReceiptOutcome } from "./outcomes";

const RECEIPT_WORDS: Record<ReceiptOutcome, { stat: string; messageState: number; err: number }> = {
  delivered: { stat: "DELIVRD", messageState: 2, err: 0 },
  undeliverable: { stat: "UNDELIV", messageState: 5, err: 1 },
  rejected: { stat: "REJECTD", messageState: 8, err: 2 },
  expired: { stat: "EXPIRED", messageState: 3, err: 3 },
};

/** The deliver_sm of a receipt: appendix B text plus receipted_message_id and message_state TLVs. */
export function buildReceipt(
  message: ReceivedMessage,
  outcome: ReceiptOutcome,
  doneAt = new Date(),
  quotedId = message.messageId ?? "",
): PduFields {
  const words = RECEIPT_WORDS[outcome];
  const text = formatReceiptText({
    id: quotedId,
    sub: 1,
    dlvrd: outcome === "delivered" ? 1 : 0,
    submitDate: new Date(message.receivedAt),
    doneDate: doneAt,
    stat: words.stat,
    err: words.err,
    // Appendix B: the first 20 characters of the message; kept to characters GSM-7 and ASCII share.
    text: (message.text ?? "").slice(0, 20).replace(/[^A-Za-z0-9 .,!?-]/g, "."),
  });
  const isAlphanumeric = /[^\d+]/.test(message.from);
  return {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: message.to,
    dest_addr_ton: isAlphanumeric ? 5 : 1,
    dest_addr_npi: isAlphanumeric ? 0 : 1,
    destination_addr: message.from,
    esm_class: EsmClass.DELIVERY_RECEIPT,
    data_coding: 0,
    short_message: Buffer.from(text, "ascii"),
    receipted_message_id: quotedId,
    message_state: words.messageState,
  };
}

/** One receipt waiting to reach the account. */
export interface ReceiptJob {
  systemId: string;
  fields: PduFields;
  /** Called on each ESME_ROK acknowledgement. */
  onAcknowledged?: () => void;
}

/**
 * Sends receipts to a receiver or transceiver bind of the submitting system_id
 * (round robin over them, as a carrier may use any), retrying later while none is
 * bound or the ESME does not acknowledge with ESME_ROK.
 */
export class ReceiptSender {
  private readonly pendingBySystem = new Map<string, number>();
  private readonly cursor = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  /** deliver_sm written / acknowledged with ESME_ROK, since start. */
  readonly counters = { sent: 0, acknowledged: 0 };

  constructor(
    private readonly sessions: () => Iterable<SmppServerSession>,
    private readonly retryDelayMs: () => number,
  ) {}

  /** Receipts of `systemId` not yet acknowledged. */
  pending(systemId: string): number {
    return this.pendingBySystem.get(systemId) ?? 0;
  }

  /** All receipts not yet acknowledged. */
  get totalPending(): number {
    let total = 0;
    for (const count of this.pendingBySystem.values()) total += count;
    return total;
  }

  /** Sends `job` after `delayMs`, and again later until acknowledged. */
  enqueue(job: ReceiptJob, delayMs: number): void {
    this.changePending(job.systemId, +1);
    this.later(job, delayMs);
  }

  /** Sends `job` now and resolves once acknowledged or once this first try failed (it is then retried later). */
  async sendFirst(job: ReceiptJob): Promise<void> {
    this.changePending(job.systemId, +1);
    if (!(await this.attempt(job))) this.later(job, this.retryDelayMs());
  }

  /** Drops every waiting receipt. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.pendingBySystem.clear();
  }

  private later(job: ReceiptJob, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(job).then((acknowledged) => acknowledged || this.later(job, this.retryDelayMs()));
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(job: ReceiptJob): Promise<boolean> {
    const session = this.pickSession(job.systemId);
    if (!session) return false;
    this.counters.sent += 1;
    try {
      const response = await session.deliver(job.fields);
      if (response.command_status !== CommandStatus.ESME_ROK) return false;
    } catch {
      return false;
    }
    this.counters.acknowledged += 1;
    this.changePending(job.systemId, -1);
    job.onAcknowledged?.();
    return true;
  }

  private pickSession(systemId: string): SmppServerSession | undefined {
    const candidates = [...this.sessions()].filter(
      (session) => session.canReceive && session.bind?.systemId === systemId,
    );
    if (candidates.length === 0) return undefined;
    const turn = (this.cursor.get(systemId) ?? 0) % candidates.length;
    this.cursor.set(systemId, turn + 1);
    return candidates[turn];
  }

  private changePending(systemId: string, delta: number): void {
    const count = Math.max(0, this.pending(systemId) + delta);
    if (count === 0) this.pendingBySystem.delete(systemId);
    else this.pendingBySystem.set(systemId, count);
  }
}
