export {
  applyReceipt,
  applyReceipts,
  type ReceiptInput,
  type ReceiptOutcome,
  type ReceiptResult,
} from "./apply-receipt";
export {
  matchPendingReceipts,
  matchPendingReceiptsFor,
  sweepUnmatched,
  type SubmittedSegment,
  type SweepOptions,
  type SweepResult,
} from "./pending-receipts";
export { lockCarrierMessageId } from "./lock";
export {
  RECEIPT_ID_FORMS,
  isReceiptIdForm,
  receiptKeyForSubmit,
  receiptKeyOf,
  receiptLockKey,
  type ReceiptIdForm,
} from "./receipt-keys";
export {
  RECEIPT_ERROR_CODES,
  describeReceiptFailure,
  isFailedReceiptState,
  type FailedReceiptState,
  type ReceiptErrorCode,
} from "./error-codes";
export {
  createDeliverSmHandler,
  type DeliverSmCounters,
  type DeliverSmDeps,
  type DeliverSmHandler,
} from "./deliver-sm";
export { doneDateHasSeconds } from "./done-date";
export {
  addressOf,
  readInboundPdu,
  type InboundFlag,
  type InboundPiece,
  type PartPosition,
} from "./inbound/read-pdu";
export { assembleText, type AssembledText, type StoredPart } from "./inbound/assemble";
export { createInboundIntake, type InboundIntake } from "./inbound/intake";
export { receivedPayload, type NewInbound } from "./inbound/insert-messages";
export {
  completeTimedOutGroups,
  purgeStoredParts,
  storeInboundPiece,
  type InboundOutcome,
} from "./inbound/store";
export type { InboundHook, StoredInbound } from "./inbound/stored-inbound";
