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
export { lockCarrierMessageId, lockCarrierMessageIds } from "./lock";
export { carrierIdForms } from "./id-forms";
export {
  RECEIPT_ERROR_CODES,
  describeReceiptFailure,
  isFailedReceiptState,
  type FailedReceiptState,
  type ReceiptErrorCode,
} from "./error-codes";
