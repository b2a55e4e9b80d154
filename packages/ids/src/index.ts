import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

export type IdPrefix = "msg" | "otp" | "bat" | "evt" | "req" | "acc" | "key" | "snd";

/** A new identifier `<prefix>_<ULID>`: sortable by creation time, 30 characters (fits SMPP's 64). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

const ULID = "[0-9A-HJKMNP-TV-Z]{26}";
const patterns = new Map<IdPrefix, RegExp>();

/** True when `value` is a well-formed id with that prefix (not that it exists). */
export function isId(prefix: IdPrefix, value: string): boolean {
  let pattern = patterns.get(prefix);
  if (!pattern) {
    pattern = new RegExp(`^${prefix}_${ULID}$`);
    patterns.set(prefix, pattern);
  }
  return pattern.test(value);
}
