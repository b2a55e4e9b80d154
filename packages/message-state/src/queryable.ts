// One transaction helper for the tree: it lives in @sms/db.
export { inTransaction, type Queryable } from "@sms/db";
