import type { SegmentInfo } from "./text-decoding";

/** Where a received submit_sm stands at the simulator. */
export type MessageStatus =
  "accepted" | "refused" | "unanswered" | "delivered" | "undeliverable" | "rejected" | "expired";

/** One submit_sm as the simulator received it. */
export interface ReceivedMessage {
  /** Our message_id; absent when the submit was refused or never answered. */
  messageId: string | undefined;
  systemId: string;
  receivedAt: string;
  from: string;
  to: string;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
  /** validity_period as received (SMPP time, absolute or relative); "" when none was given. */
  validityPeriod: string;
  /** Text decoded per data_coding (0 GSM-7, 1 ASCII, 3 Latin-1, 8 UCS-2); absent for other codings. */
  text: string | undefined;
  /** short_message (or message_payload) as received, UDH included, hex. */
  rawHex: string;
  segment: SegmentInfo | undefined;
  /** command_status we answered with (undefined while unanswered). */
  submitStatus: number | undefined;
  status: MessageStatus;
  receiptsSent: number;
}

/** Filters of GET /messages. */
export interface MessageQuery {
  /** Destination; compared on digits only, so "+4477…" matches "4477…". */
  to?: string;
  systemId?: string;
  /** Newest this many. @defaultValue 100 */
  limit?: number;
}

/**
 * The last `capacity` submits received, oldest first: memory stays bounded however
 * long the simulator runs (a ring buffer plus an index by message id).
 */
export class MessageLog {
  private readonly slots: Array<ReceivedMessage | undefined>;
  private next = 0;
  private readonly byMessageId = new Map<string, ReceivedMessage>();

  constructor(readonly capacity: number) {
    this.slots = new Array<ReceivedMessage | undefined>(capacity);
  }

  /** Records a message, evicting the oldest when full. */
  add(message: ReceivedMessage): void {
    const evicted = this.slots[this.next];
    if (evicted?.messageId) this.byMessageId.delete(evicted.messageId);
    this.slots[this.next] = message;
    this.next = (this.next + 1) % this.capacity;
    if (message.messageId) this.byMessageId.set(message.messageId, message);
  }

  /** A message by our message_id, while it is still kept. */
  get(messageId: string): ReceivedMessage | undefined {
    return this.byMessageId.get(messageId);
  }

  /** Messages matching `query`, oldest first. */
  find(query: MessageQuery = {}): ReceivedMessage[] {
    const digits = query.to?.replace(/\D/g, "");
    const matches = this.ordered().filter(
      (message) =>
        (!digits || message.to.replace(/\D/g, "") === digits) &&
        (!query.systemId || message.systemId === query.systemId),
    );
    return matches.slice(-(query.limit ?? 100));
  }

  /** Forgets everything. */
  clear(): void {
    this.slots.fill(undefined);
    this.byMessageId.clear();
    this.next = 0;
  }

  private ordered(): ReceivedMessage[] {
    const ordered = [...this.slots.slice(this.next), ...this.slots.slice(0, this.next)];
    return ordered.filter((message): message is ReceivedMessage => message !== undefined);
  }
}
