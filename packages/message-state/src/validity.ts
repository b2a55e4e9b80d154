/**
 * How long a message may wait for a carrier, from when it is due (docs/messages.md#validity):
 * the shortest and longest `validity_period` a message may ask for, and the default, in seconds.
 * The longest also bounds how long before its submit a message was due, which is what lets a
 * receipt's look-up read only the weeks its message can be in (docs/decisions.md#partitions).
 */
export const VALIDITY_MIN_SECONDS = 60;
export const VALIDITY_MAX_SECONDS = 259_200;
export const DEFAULT_VALIDITY_SECONDS = 172_800;
