import type pg from "pg";
import type { Queryable } from "@sms/db";
import { ApiError } from "@sms/errors";

interface Waiting {
  accountId: string;
  numbers: readonly string[];
  resolve: (suppressed: Set<string>) => void;
  reject: (error: unknown) => void;
}

// The primary key (account_id, number) answers each pair with one index probe.
const SUPPRESSED = `
SELECT s.account_id, s.number FROM suppressions AS s
JOIN unnest($1::text[], $2::text[]) AS t(account_id, number)
  ON s.account_id = t.account_id AND s.number = t.number`;

/**
 * Which destinations an account may not send to (docs/api.md#suppressions): a batch's, before its
 * commit (a single message is checked by its commit's own statement, docs/decisions.md#opt-out). Lookups that
 * arrive while one is running are answered together by the next statement, as the group
 * committer charges acceptances: under load one indexed lookup covers many requests, and
 * a bulk request is always one lookup, whatever its size.
 */
export class SuppressionLookup {
  private waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxInFlight = 2,
  ) {}

  /** The numbers of `numbers` (E.164) that are on the account's suppression list. */
  suppressed(accountId: string, numbers: readonly string[]): Promise<Set<string>> {
    if (numbers.length === 0) return Promise.resolve(new Set());
    return new Promise((resolve, reject) => {
      this.waiting.push({ accountId, numbers, resolve, reject });
      this.run();
    });
  }

  private run(): void {
    if (this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    const taken = this.waiting;
    this.waiting = [];
    this.inFlight++;
    void this.lookUp(taken).finally(() => {
      this.inFlight--;
      this.run();
    });
  }

  private async lookUp(taken: Waiting[]): Promise<void> {
    const accounts: string[] = [];
    const numbers: string[] = [];
    for (const entry of taken)
      for (const number of entry.numbers) {
        accounts.push(entry.accountId);
        numbers.push(number);
      }
    try {
      const byAccount = await suppressedPairs(this.pool, accounts, numbers);
      for (const entry of taken) {
        const all = byAccount.get(entry.accountId);
        entry.resolve(new Set(all ? entry.numbers.filter((n) => all.has(n)) : []));
      }
    } catch (error) {
      for (const entry of taken) entry.reject(error);
    }
  }
}

/**
 * Which of the (account, number) pairs are on their account's suppression list, by account: one
 * statement, on the pool or inside the caller's transaction.
 */
export async function suppressedPairs(
  db: Queryable,
  accountIds: readonly string[],
  numbers: readonly string[],
): Promise<Map<string, Set<string>>> {
  const byAccount = new Map<string, Set<string>>();
  if (accountIds.length === 0) return byAccount;
  const { rows } = await db.query<{ account_id: string; number: string }>({
    name: "acceptance-suppressed",
    text: SUPPRESSED,
    values: [accountIds, numbers],
  });
  for (const row of rows) {
    const set = byAccount.get(row.account_id) ?? new Set<string>();
    set.add(row.number);
    byAccount.set(row.account_id, set);
  }
  return byAccount;
}

/** The refusal of a send to a number that opted out: nothing is charged. */
export function optedOut(field: string): ApiError {
  return new ApiError(
    "RECIPIENT_OPTED_OUT",
    `${field} opted out of messages from this account (it replied STOP or was added to GET /v1/suppressions); remove it there only with the recipient's consent.`,
    { field },
  );
}
