import type pg from "pg";
import type { Logger } from "@sms/logger";
import type { SmppServerSession } from "@sms/smpp";
import type { AccountDirectory } from "./accounts";
import type { BindLeases } from "./bind-leases";
import type { SessionRegistry } from "./sessions";

/** The NOTIFY channel of the smpp_credentials and accounts triggers; the payload is an account id. */
export const BINDS_CHANGED_CHANNEL = "smpp_binds_changed";

const LOAD_GRANTS = `
SELECT a.id, a.status, c.system_id, c.password_hash, c.max_binds
FROM accounts a LEFT JOIN smpp_credentials c ON c.account_id = a.id
WHERE a.id = ANY($1::text[])`;

interface Grant {
  id: string;
  status: string;
  system_id: string | null;
  password_hash: string | null;
  max_binds: number | null;
}

/**
 * Closes this replica's binds that no longer hold (unbind, then close): credentials removed,
 * password reset or system_id changed since the bind, account no longer active, or more binds
 * on every replica together than the account's max_binds now allows (the oldest binds stay).
 * Told by the triggers' NOTIFY within milliseconds; a periodic review of every bound account
 * covers a notification lost with the listening connection.
 */
export class BindRevoker {
  constructor(
    private readonly pool: pg.Pool,
    private readonly registry: SessionRegistry,
    private readonly leases: BindLeases,
    private readonly accounts: AccountDirectory,
    private readonly logger: Logger,
  ) {}

  /** Reviews the binds of `accountIds` on this replica; resolves once the affected ones are told to close. */
  async review(accountIds: string[]): Promise<void> {
    const bound = accountIds.filter((id) => this.registry.sessionsOf(id).length > 0);
    for (const id of accountIds) this.accounts.forget(id);
    if (bound.length === 0) return;
    const { rows } = await this.pool.query<Grant>(LOAD_GRANTS, [bound]);
    const grants = new Map(rows.map((row) => [row.id, row]));
    await Promise.all(bound.map((accountId) => this.reviewAccount(accountId, grants.get(accountId))));
  }

  /** Reviews every account bound on this replica. */
  reviewAll(): Promise<void> {
    return this.review(this.registry.accounts());
  }

  private async reviewAccount(accountId: string, grant: Grant | undefined): Promise<void> {
    const closing = new Map<SmppServerSession, string>();
    const withdrawn = whyWithdrawn(grant);
    for (const session of this.registry.sessionsOf(accountId)) {
      const identity = this.registry.identityOf(session);
      if (!identity) continue;
      if (withdrawn) closing.set(session, withdrawn);
      else if (identity.systemId !== grant!.system_id || identity.passwordHash !== grant!.password_hash)
        closing.set(session, "SMPP credentials changed");
    }
    const staying = this.registry.sessionsOf(accountId).filter((session) => !closing.has(session));
    if (grant?.max_binds != null && staying.length > 0) {
      const keep = new Set((await this.leases.oldestFirst(accountId)).slice(0, grant.max_binds));
      for (const session of staying) {
        const identity = this.registry.identityOf(session);
        if (identity && !keep.has(identity.leaseId))
          closing.set(session, `bind limit lowered to ${grant.max_binds}`);
      }
    }
    for (const [session, reason] of closing) {
      this.logger.info("closing a bind that no longer holds", { account_id: accountId, reason });
      void session.close(reason).catch(() => undefined);
    }
  }
}

/** Why none of the account's binds holds any more, or undefined when binds may stay. */
function whyWithdrawn(grant: Grant | undefined): string | undefined {
  if (!grant) return "account removed";
  if (grant.status !== "active") return `account ${grant.status}`;
  if (!grant.password_hash) return "SMPP credentials removed";
  return undefined;
}
