export {
  buildReceiptText,
  isFinalStatus,
  receiptState,
  wantsReceipt,
  type FinalStatus,
} from "./receipt-text";
export { insertReceipts, type ReceiptRow } from "./receipt-rows.sql";
export {
  notifyReceiptsStored,
  RECEIPTS_CHANNEL,
  storeReceiptsFor,
  type StoredReceipts,
} from "./store-receipts";
