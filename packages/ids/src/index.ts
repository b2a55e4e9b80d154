import crypto from "node:crypto";

export type IdPrefix = "msg" | "otp" | "bat" | "evt" | "req" | "acc" | "key" | "snd" | "in";

// Crockford base32, as ULID specifies.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const RANDOM_POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = RANDOM_POOL_SIZE;
let lastTime = -1;
const lastRandom = new Uint8Array(10);

function fillRandom(target: Uint8Array): void {
  // One CSPRNG call per 400 ids: the `ulid` package calls randomBytes(1) per character,
  // which showed up at ~3% of the gateway's CPU under load.
  if (poolOffset + target.length > RANDOM_POOL_SIZE) {
    pool = crypto.randomBytes(RANDOM_POOL_SIZE);
    poolOffset = 0;
  }
  pool.copy(target, 0, poolOffset, poolOffset + target.length);
  poolOffset += target.length;
}

/**
 * Within one millisecond the ULID spec adds 1 to the random part, so one tenant's id gives away the
 * next id we hand anyone. We keep the order with a counter in the top 32 bits and
 * draw the low 48 bits afresh for every id: a neighbour is one guess in 2^48.
 */
const COUNTER_BYTES = 4;

function nextInSameMillisecond(): void {
  for (let i = COUNTER_BYTES - 1; i >= 0; i--) {
    if (lastRandom[i]! < 255) {
      lastRandom[i]!++;
      fillRandom(lastRandom.subarray(COUNTER_BYTES));
      return;
    }
    lastRandom[i] = 0;
  }
  // 2^31 ids in one millisecond (a fresh counter starts below 2^31): borrow the next millisecond.
  lastTime++;
  startMillisecond();
}

function startMillisecond(): void {
  fillRandom(lastRandom);
  lastRandom[0]! &= 0x7f; // leaves 2^31 steps before the counter can wrap
}

/** A ULID (48-bit millisecond time + 80 random bits), monotonic within this process (also if the clock steps back). */
export function ulid(now = Date.now()): string {
  if (now > lastTime) {
    lastTime = now;
    startMillisecond();
  } else nextInSameMillisecond();
  return encodeUlid(lastTime, lastRandom);
}

/** The 26-character ULID of a millisecond time and 10 random bytes. */
export function encodeUlid(timeMs: number, random: Uint8Array): string {
  let time = timeMs;
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32]! + out;
    time = Math.floor(time / 32);
  }
  // 80 random bits → 16 base32 characters, 5 bits at a time.
  let bits = 0;
  let value = 0;
  for (const byte of random) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(value >> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

/** A new identifier `<prefix>_<ULID>`: sortable by creation time, 30 characters (fits SMPP's 64). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/**
 * A message id: `msg_<ULID>` whose time is when the message is due, its `scheduled_at` when that is
 * ahead, else now (docs/decisions.md#partitions). The message tables are partitioned by the
 * week of this time, so a message, its history and its segments sit in the week it goes out:
 * everything that looks a message up after it is due (dispatch, receipts, sweeps) reads the
 * weeks around now, and a week is dropped whole once its messages are past retention, however
 * far ahead they were scheduled. Ids of messages due now are ordered as newId's are; a future
 * time takes all 80 random bits (no counter: two messages due in the same millisecond sort by
 * chance), and never moves this process's clock for the ids that follow.
 */
export function newMessageId(dueAt?: Date | null): string {
  const due = dueAt?.getTime() ?? 0;
  if (due <= Date.now()) return newId("msg");
  const random = new Uint8Array(10);
  fillRandom(random);
  return `msg_${encodeUlid(due, random)}`;
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

/**
 * The smallest id with that prefix made at `timeMs` or later: `<prefix>_` and the ULID's 10 time
 * characters. Every id made before it sorts below it and every id made from then on at or above
 * it (in byte order and in any collation that puts digits before capital letters), so it bounds
 * key ranges by creation time: retention's cursors, day partitions of tables keyed by id.
 */
export function idBoundAt(prefix: IdPrefix, timeMs: number): string {
  return `${prefix}_${encodeUlid(timeMs, new Uint8Array(0))}`;
}

/**
 * The smallest and the largest of some ids (at least one), in byte order: after their common
 * prefix an id is digits and capital letters, which byte order and every collation that puts
 * digits before capital letters sort alike (the databases here use C.UTF-8). A
 * statement given them as constants plans only the partitions between them, where a join on the
 * ids alone plans every partition (docs/decisions.md#message-weeks).
 */
export function idRange(ids: readonly string[]): { first: string; last: string } {
  if (ids.length === 0) throw new Error("idRange needs at least one id");
  let first = ids[0]!;
  let last = first;
  for (const id of ids) {
    if (id < first) first = id;
    if (id > last) last = id;
  }
  return { first, last };
}

/** The creation time (ms) of a `<prefix>_<ULID>` id or of an idBoundAt bound. */
export function idTime(id: string): number {
  const start = id.indexOf("_") + 1;
  const time = id.slice(start, start + 10);
  if (start === 0 || time.length < 10) throw new Error(`Not an id with a ULID time: ${id}`);
  let ms = 0;
  for (const char of time) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) throw new Error(`Not an id with a ULID time: ${id}`);
    ms = ms * 32 + digit;
  }
  return ms;
}
