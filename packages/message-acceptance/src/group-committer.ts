import type pg from "pg";
import { retryOnDeadlock } from "@sms/db";
import type { DispatchEntry } from "@sms/queues";
import { ApiError } from "@sms/errors";
import type { PreparedMessage } from "./prepare";
import { optedOut, suppressedPairs } from "./suppression-lookup";
import {
  lockAccounts,
  type LockedAccount,
  writeDecided,
  writeIfCovered,
  type BatchRow,
  type OtpRow,
  type SmppSubmitRow,
} from "./persist.sql";

/** One acceptance: its messages are charged and stored all together or not at all. */
export interface CommitItem {
  accountId: string;
  messages: PreparedMessage[];
  batch?: BatchRow;
  otp?: OtpRow;
  /** Written with the message, in the same statement: no accepted submit_sm without its record. */
  smppSubmit?: SmppSubmitRow;
  /**
   * Checks the item's one message against its account's suppression list in the flush itself,
   * refusing it with RECIPIENT_OPTED_OUT naming this field (docs/decisions.md#opt-out).
   */
  optOutField?: string;
}

export interface GroupCommitterOptions {
  /** Messages per transaction before a flush is cut; one item is never split. @defaultValue 5000 */
  maxMessagesPerFlush?: number;
  /** Transactions in flight at once. @defaultValue 2 */
  maxConcurrentFlushes?: number;
  /**
   * How long an idle committer waits, ms, before its flush, for the requests arriving meanwhile
   * (docs/benchmarks.md#acceptance-linger). A flush that starts while another is in flight does
   * not wait. @defaultValue 2
   */
  lingerMs?: number;
  /** Called after each commit with the messages that became queued. */
  onQueued?: (messages: DispatchEntry[]) => void;
}

interface Pending {
  item: CommitItem;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for acceptances. A per-request UPDATE of an account's balance row
 * would serialize every send of that account behind one row lock; instead, the
 * acceptances that arrive while a transaction runs are charged together in the
 * next one: one row lock, one balance write and one multi-row insert per table.
 * Each item is still all-or-none and sees the balance left by those before it.
 *
 * A flush is first tried as ONE autocommit statement that charges each account only if
 * its balance covers all of its items (the usual case): one round trip, and the balance
 * row locked for that statement alone. The items of an account it could not cover, and
 * OTPs (their superseding needs the lock taken by an earlier statement), are decided one
 * by one in a transaction: lock the balances, decide, write, commit.
 *
 * Flushes of one account in flight at once (several committers, or maxConcurrentFlushes
 * above 1) can deadlock on its balance row although each locks it first: a flush's
 * foreign-key checks lock the row version it just updated while the next flush waits for
 * that row. Either form is all-or-nothing, so a flush PostgreSQL aborted is run again.
 */
export class GroupCommitter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private readonly maxMessages: number;
  private readonly maxFlushes: number;
  private readonly lingerMs: number;
  private lingering: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: GroupCommitterOptions = {},
  ) {
    this.maxMessages = options.maxMessagesPerFlush ?? 5000;
    this.maxFlushes = options.maxConcurrentFlushes ?? 2;
    this.lingerMs = options.lingerMs ?? 2;
  }

  /**
   * Resolves once the item is durably committed; rejects with QUOTA_EXCEEDED, INSUFFICIENT_CREDITS,
   * RECIPIENT_OPTED_OUT (with optOutField) or the database error.
   */
  commit(item: CommitItem): Promise<void> {
    if (item.optOutField !== undefined && item.messages.length !== 1)
      return Promise.reject(new TypeError("optOutField is for an item of one message"));
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.lingering || this.queue.length === 0) return;
    if (this.inFlight === 0 && this.lingerMs > 0) {
      // Not unref'd: a process must not exit with acceptances still waiting to be written.
      this.lingering = setTimeout(() => {
        this.lingering = null;
        this.startFlushes();
      }, this.lingerMs);
      return;
    }
    this.startFlushes();
  }

  private startFlushes(): void {
    while (this.inFlight < this.maxFlushes && this.queue.length > 0) {
      const taken: Pending[] = [];
      let count = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0]!;
        if (taken.length > 0 && count + next.item.messages.length > this.maxMessages) break;
        taken.push(this.queue.shift()!);
        count += next.item.messages.length;
      }
      this.inFlight++;
      void this.flush(taken).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  private async flush(pending: Pending[]): Promise<void> {
    const direct = pending.filter((entry) => !entry.item.otp);
    let decided = pending.filter((entry) => entry.item.otp);
    if (direct.length > 0) {
      try {
        const rows = rowsOf(direct);
        const { charged, suppressed } = await retryOnDeadlock(() =>
          writeIfCovered(this.pool, rows, optOutChecked(direct)),
        );
        const refused = new Map<Pending, ApiError | null>();
        for (const entry of direct)
          if (isSuppressed(entry, suppressed)) refused.set(entry, optedOut(entry.item.optOutField!));
        this.settle(
          direct.filter((entry) => refused.has(entry) || charged.has(entry.item.accountId)),
          refused,
        );
        decided = pending.filter(
          (entry) => entry.item.otp || (!refused.has(entry) && !charged.has(entry.item.accountId)),
        );
      } catch (error) {
        for (const entry of direct) entry.reject(error);
      }
    }
    if (decided.length > 0) await this.decideEach(decided);
  }

  /** One transaction: lock the balances, charge each item that fits (in order), write, commit. */
  private async decideEach(pending: Pending[]): Promise<void> {
    let outcomes: Map<Pending, ApiError | null>;
    try {
      outcomes = await retryOnDeadlock(() => this.decideEachOnce(pending));
    } catch (error) {
      for (const entry of pending) entry.reject(error);
      return;
    }
    this.settle(pending, outcomes);
  }

  private async decideEachOnce(pending: Pending[]): Promise<Map<Pending, ApiError | null>> {
    let client: pg.PoolClient | undefined;
    const outcomes = new Map<Pending, ApiError | null>();
    try {
      client = await this.pool.connect();
      await client.query("BEGIN");
      const accounts = await lockAccounts(client, [...new Set(pending.map((p) => p.item.accountId))]);
      const checked = rowsOf(pending.filter((entry) => entry.item.optOutField !== undefined)).messages;
      const listed = await suppressedPairs(
        client,
        checked.map((m) => m.accountId),
        checked.map((m) => m.to),
      );
      const suppressed = new Set(checked.filter((m) => listed.get(m.accountId)?.has(m.to)).map((m) => m.id));
      const changed = new Map<string, { balance: bigint; usedToday: number }>();
      const accepted: Pending[] = [];
      for (const entry of pending) {
        const { item } = entry;
        if (isSuppressed(entry, suppressed)) {
          outcomes.set(entry, optedOut(item.optOutField!));
          continue;
        }
        const account = accounts.get(item.accountId);
        if (account === undefined) {
          outcomes.set(entry, new ApiError("FORBIDDEN", "The account is not active."));
          continue;
        }
        const refusal = refusalOf(item, account);
        if (refusal) {
          outcomes.set(entry, refusal);
          continue;
        }
        account.balance -= BigInt(creditsOf(item));
        account.usedToday += item.messages.length;
        changed.set(item.accountId, { balance: account.balance, usedToday: account.usedToday });
        accepted.push(entry);
        outcomes.set(entry, null);
      }
      if (accepted.length) await writeDecided(client, rowsOf(accepted), changed);
      await client.query("COMMIT");
    } catch (error) {
      await client?.query("ROLLBACK").catch(() => undefined);
      client?.release(true);
      throw error;
    }
    client.release();
    return outcomes;
  }

  /** Answers committed entries (an outcome of null, or none) and refused ones; hands the queued ids off. */
  private settle(entries: Pending[], outcomes: Map<Pending, ApiError | null>): void {
    const queued: DispatchEntry[] = [];
    for (const entry of entries) {
      const outcome = outcomes.get(entry);
      if (outcome) {
        entry.reject(outcome);
        continue;
      }
      for (const message of entry.item.messages)
        if (message.status === "queued")
          queued.push({ messageId: message.id, accountId: message.accountId, priority: message.priority });
      entry.resolve();
    }
    if (queued.length) this.options.onQueued?.(queued);
  }
}

const creditsOf = (item: CommitItem) => item.messages.reduce((sum, m) => sum + m.credits, 0);

/**
 * Why an item cannot be accepted on what is left of its account: the day's quota first (an item
 * that does not fit is refused whole and counts nothing), then the credits.
 */
function refusalOf(item: CommitItem, account: LockedAccount): ApiError | null {
  if (account.usedToday + item.messages.length > account.dailyQuota)
    return new ApiError(
      "QUOTA_EXCEEDED",
      `This would exceed the account's daily quota of ${account.dailyQuota} messages; it resets at 00:00 UTC.`,
      { retryAfterSeconds: secondsToUtcMidnight(Date.now()) },
    );
  const needed = BigInt(creditsOf(item));
  if (account.balance < needed)
    return new ApiError(
      "INSUFFICIENT_CREDITS",
      `This needs ${needed} credits and the balance is ${account.balance}; add credits and retry.`,
    );
  return null;
}

/**
 * Messages an account accepted today (UTC) against its daily quota, from its row's quota_day and
 * quota_used (docs/decisions.md#daily-quota): another day's count is none of today's.
 */
export function dailyQuotaUsed(
  account: { quotaDay: Date | null; quotaUsed: number },
  now = Date.now(),
): number {
  const today = new Date(now).toISOString().slice(0, 10);
  return account.quotaDay?.toISOString().slice(0, 10) === today ? account.quotaUsed : 0;
}

/** Whole seconds from `now` (epoch ms) to the next 00:00 UTC, at least 1. */
export function secondsToUtcMidnight(now: number): number {
  const day = 86_400_000;
  return Math.max(1, Math.ceil((Math.floor(now / day + 1) * day - now) / 1000));
}

/** The messages the flush checks against their accounts' suppression lists. */
function optOutChecked(entries: Pending[]): Set<string> {
  return new Set(
    entries.flatMap((entry) => (entry.item.optOutField === undefined ? [] : [entry.item.messages[0]!.id])),
  );
}

function isSuppressed(entry: Pending, suppressed: ReadonlySet<string>): boolean {
  return entry.item.optOutField !== undefined && suppressed.has(entry.item.messages[0]!.id);
}

function rowsOf(entries: Pending[]) {
  return {
    messages: entries.flatMap((entry) => entry.item.messages),
    batches: entries.flatMap((entry) => (entry.item.batch ? [entry.item.batch] : [])),
    otps: entries.flatMap((entry) => (entry.item.otp ? [entry.item.otp] : [])),
    smppSubmits: entries.flatMap((entry) => (entry.item.smppSubmit ? [entry.item.smppSubmit] : [])),
  };
}
