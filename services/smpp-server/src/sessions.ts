import type { SmppServerSession } from "@sms/smpp";

/** Who a bound session acts for. */
export interface SessionIdentity {
  accountId: string;
  systemId: string;
  /** The password hash the bind was granted on: a reset or removal of it closes the bind. */
  passwordHash: string;
  /** The bind's slot in the account's limit (BindLeases), shared by every replica. */
  leaseId: string;
}

/**
 * The binds of this process per account: bind limits are counted here, and receipts
 * pick a receiver or transceiver bind of the account from here.
 */
export class SessionRegistry {
  private readonly byAccount = new Map<string, Set<SmppServerSession>>();
  private readonly identities = new WeakMap<SmppServerSession, SessionIdentity>();
  private readonly cursor = new Map<string, number>();

  /** Every session that holds a bind (or a reserved one). */
  get size(): number {
    let total = 0;
    for (const sessions of this.byAccount.values()) total += sessions.size;
    return total;
  }

  /**
   * Counts `session` against the account's bind limit; false when the account already
   * has `maxBinds` sessions. The slot is freed when the session closes.
   */
  reserve(session: SmppServerSession, identity: SessionIdentity, maxBinds: number): boolean {
    if (session.state === "closed") return false;
    const sessions = this.byAccount.get(identity.accountId) ?? new Set();
    if (sessions.size >= maxBinds) return false;
    sessions.add(session);
    this.byAccount.set(identity.accountId, sessions);
    this.identities.set(session, identity);
    const release = (state: string) => {
      if (state !== "closed") return;
      session.off("state", release);
      sessions.delete(session);
      if (sessions.size === 0 && this.byAccount.get(identity.accountId) === sessions)
        this.byAccount.delete(identity.accountId);
    };
    session.on("state", release);
    return true;
  }

  /** The account a session is bound for. */
  identityOf(session: SmppServerSession): SessionIdentity | undefined {
    return this.identities.get(session);
  }

  /** Accounts with at least one session that can take deliver_sm. */
  receivingAccounts(): string[] {
    return [...this.byAccount.entries()]
      .filter(([, sessions]) => [...sessions].some((session) => session.canReceive))
      .map(([accountId]) => accountId);
  }

  /** The account's sessions that can take deliver_sm now, rotated so receipts spread over them. */
  receivers(accountId: string): SmppServerSession[] {
    const sessions = [...(this.byAccount.get(accountId) ?? [])].filter((session) => session.canReceive);
    if (sessions.length < 2) return sessions;
    const start = (this.cursor.get(accountId) ?? 0) % sessions.length;
    this.cursor.set(accountId, start + 1);
    return [...sessions.slice(start), ...sessions.slice(0, start)];
  }

  /** The account's sessions on this replica (bound, or bound a moment ago). */
  sessionsOf(accountId: string): SmppServerSession[] {
    return [...(this.byAccount.get(accountId) ?? [])];
  }

  /** Accounts with at least one session on this replica. */
  accounts(): string[] {
    return [...this.byAccount.keys()];
  }

  /** Every session, for shutdown. */
  all(): SmppServerSession[] {
    return [...this.byAccount.values()].flatMap((sessions) => [...sessions]);
  }
}
