// One transaction helper for the tree: it lives in @sms/db.
export { inTransaction, retryOnDeadlock } from "@sms/db";
