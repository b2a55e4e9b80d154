import type { ReceiptState } from "@sms/smpp";

/** Final receipt states that fail a segment for good, and the message error_code each one sets. */
export const RECEIPT_ERROR_CODES = {
  undeliverable: "UNDELIVERABLE",
  rejected: "REJECTED",
  expired: "EXPIRED",
  deleted: "DELETED",
} as const satisfies Partial<Record<ReceiptState, string>>;

export type FailedReceiptState = keyof typeof RECEIPT_ERROR_CODES;
export type ReceiptErrorCode = (typeof RECEIPT_ERROR_CODES)[FailedReceiptState];

const SENTENCES: Record<FailedReceiptState, string> = {
  undeliverable: "The carrier could not deliver the message to the handset",
  rejected: "The carrier rejected the message",
  expired: "The message expired before the carrier could deliver it",
  deleted: "The carrier deleted the message before delivering it",
};

/** True for the states that fail a segment for good. */
export function isFailedReceiptState(state: ReceiptState): state is FailedReceiptState {
  return Object.hasOwn(RECEIPT_ERROR_CODES, state);
}

/** The message error_code and error_message of a failed receipt; the carrier's `err:` value is quoted in the message. */
export function describeReceiptFailure(
  state: FailedReceiptState,
  carrierError?: string | null,
): { errorCode: ReceiptErrorCode; errorMessage: string } {
  const detail = carrierError ? ` (carrier error ${carrierError})` : "";
  return { errorCode: RECEIPT_ERROR_CODES[state], errorMessage: `${SENTENCES[state]}${detail}.` };
}
