export {
  MESSAGE_STATUSES,
  allowedFrom,
  canTransition,
  isMessageStatus,
  isTerminal,
  mayRefund,
  outboxEventType,
  type MessageStatus,
} from "./transitions";
export {
  applyTransition,
  applyTransitions,
  type TransitionInput,
  type TransitionResult,
} from "./apply-transition";
export {
  expireOverdue,
  expiryReason,
  timeOutReceipts,
  OVERDUE_AWAITING,
  OVERDUE_SENT,
  type SweepResult,
} from "./expiry";
export {
  PROMOTE_STATEMENTS,
  promoteDueScheduled,
  type PromoteOptions,
  type PromotedMessage,
} from "./promote-due";
export type { Queryable } from "./queryable";
export { eventDataSql, eventDataSubquery } from "./status-event";
export * from "./counts";
export * from "./export";
export { dueByIdBound, waitingSinceIdBound } from "./message-weeks";
export { DEFAULT_VALIDITY_SECONDS, VALIDITY_MAX_SECONDS, VALIDITY_MIN_SECONDS } from "./validity";
