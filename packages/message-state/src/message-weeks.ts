import { idBoundAt } from "@sms/ids";
import { VALIDITY_MAX_SECONDS } from "./validity";

const HOUR_MS = 3_600_000;

/**
 * The upper id bound of the messages due by `now`, for the statements that look messages up by
 * something other than their ids (the promotion, the sweeps, the reconciler). The message tables
 * are partitioned by the week of the message id, whose time is when the message is due
 * (docs/decisions.md#partitions): with this bound a plan leaves out the weeks ahead, which hold
 * only messages scheduled for later. An hour more for hosts whose clocks disagree. Such
 * statements are sent unnamed, so each plan is made for its bound.
 */
export function dueByIdBound(now: Date | number = Date.now()): string {
  return idBoundAt("msg", +now + HOUR_MS);
}

/**
 * The lower id bound of the messages that may still wait for a carrier at `now`: one due
 * earlier has had its longest validity and is failed by the validity sweep (an hour more, as
 * above). For statements that only want messages still within their validity.
 */
export function waitingSinceIdBound(now: Date | number = Date.now()): string {
  return idBoundAt("msg", +now - VALIDITY_MAX_SECONDS * 1000 - HOUR_MS);
}
