export type { KeywordFamily, OptOutKeyword } from "./keywords";
export { autoReplyRef, keywordsOnInbound, sendKeywordAutoReply, type AutoReplyOutcome } from "./auto-reply";
export { applyOptOutKeyword, senderNumber, type OptOutOutcome } from "./opt-out";
export {
  addSuppression,
  getSuppression,
  listSuppressions,
  removeSuppression,
  type Suppression,
  type SuppressionSource,
} from "./store";
