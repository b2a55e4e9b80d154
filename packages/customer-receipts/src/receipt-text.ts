import { isMessageStatus, isTerminal } from "@sms/message-state";
import { formatReceiptText, MessageState, ReceiptStat } from "@sms/smpp";

/** Final message statuses that produce a receipt; queued/sent/scheduled do not (registered_delivery asks for final ones). */
export type FinalStatus = "delivered" | "failed" | "canceled";

export function isFinalStatus(status: string): status is FinalStatus {
  return isMessageStatus(status) && isTerminal(status);
}

/**
 * The receipt's `err:` for our error codes (docs/smpp.md#receipts). The text field is three
 * digits in SMPP 3.4 appendix B and network specific; customers match on these.
 */
const ERR_BY_CODE: Record<string, string> = {
  UNDELIVERABLE: "001",
  REJECTED: "002",
  EXPIRED: "003",
  DELETED: "004",
  NO_ROUTE: "005",
  INCOMPLETE: "006",
  RECEIPT_TIMEOUT: "007",
};
const OTHER_ERR = "099";

/** Where a receipt says the message is: stat word and message_state TLV. */
export function receiptState(status: FinalStatus, errorCode: string | null): { stat: string; state: number } {
  if (status === "delivered") return { stat: ReceiptStat.delivered, state: MessageState.DELIVERED };
  if (status === "canceled") return { stat: ReceiptStat.deleted, state: MessageState.DELETED };
  switch (errorCode) {
    case "EXPIRED":
      return { stat: ReceiptStat.expired, state: MessageState.EXPIRED };
    case "DELETED":
      return { stat: ReceiptStat.deleted, state: MessageState.DELETED };
    case "REJECTED":
    case "INCOMPLETE":
      return { stat: ReceiptStat.rejected, state: MessageState.REJECTED };
    // The carrier took it and never said what became of it (docs/messages.md#validity): not a refusal.
    case "RECEIPT_TIMEOUT":
      return { stat: ReceiptStat.unknown, state: MessageState.UNKNOWN };
    default:
      // A refusal before acceptance (credits, sender) is a rejection; everything else did not reach the handset.
      return errorCode && !ERR_BY_CODE[errorCode] && !errorCode.startsWith("SMPP_")
        ? { stat: ReceiptStat.rejected, state: MessageState.REJECTED }
        : { stat: ReceiptStat.undeliverable, state: MessageState.UNDELIVERABLE };
  }
}

/** Whether registered_delivery (SMPP 3.4 §5.2.17, bits 0-1) asks for a receipt of this outcome. */
export function wantsReceipt(registeredDelivery: number, status: FinalStatus): boolean {
  const kind = registeredDelivery & 0x03;
  if (kind === 1) return true;
  if (kind === 2) return status !== "delivered";
  return false;
}

/** The appendix B text of one receipt. */
export function buildReceiptText(input: {
  submitId: string;
  status: FinalStatus;
  errorCode: string | null;
  submittedAt: Date;
  doneAt: Date;
  body: string | null;
}): { text: string; messageState: number } {
  const { stat, state } = receiptState(input.status, input.errorCode);
  const err = input.status === "delivered" ? "000" : (ERR_BY_CODE[input.errorCode ?? ""] ?? OTHER_ERR);
  // The first 20 characters, as carriers do, only when plain ASCII: the receipt is sent as IA5.
  const head = (input.body ?? "").slice(0, 20);
  return {
    text: formatReceiptText({
      id: input.submitId,
      sub: 1,
      dlvrd: input.status === "delivered" ? 1 : 0,
      submitDate: input.submittedAt,
      doneDate: input.doneAt,
      stat,
      err,
      text: /^[\x20-\x7e]*$/.test(head) ? head : "",
    }),
    messageState: state,
  };
}
