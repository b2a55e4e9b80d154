import type { Logger } from "@sms/logger";
import type { SmppServerSession } from "@sms/smpp";
import type { SessionRegistry } from "./sessions";

/**
 * What receipts and inbound messages share on their way to a customer's binds: rows stored
 * per account, written as deliver_sm to the account's receiver and transceiver binds in rounds.
 * A round is kicked when rows are stored, when such a bind appears, and on every sweep
 * (retries, rows stored by another replica); at most one round runs per account, and a kick
 * during it runs another after. A round claims rows (each pump's claim makes them due again
 * after its retry time, so a row nobody acknowledges is sent again) and spreads them over
 * the binds; each pump deletes a row only once the customer answered ESME_ROK.
 */
export abstract class AccountPump<Row> {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private stopped = false;

  protected constructor(
    private readonly registry: SessionRegistry,
    protected readonly logger: Logger,
    /** For the log: "receipt", "inbound". */
    private readonly what: string,
  ) {}

  /** The account's due rows, claimed: none once there are no more. */
  protected abstract claim(accountId: string): Promise<Row[]>;
  /** Writes one row to the session; settles once the customer answered or the write failed. */
  protected abstract deliver(row: Row, session: SmppServerSession): Promise<void>;

  /** Sends the account's due rows if it has a bind to take them. */
  kick(accountId: string): void {
    if (this.stopped || this.registry.receivers(accountId).length === 0) return;
    if (this.running.has(accountId)) {
      this.again.add(accountId);
      return;
    }
    const round = this.drain(accountId)
      .catch((error: unknown) => {
        this.logger.warn(`${this.what} round failed; retried on the next sweep`, {
          account_id: accountId,
          error: String(error),
        });
      })
      .finally(() => {
        this.running.delete(accountId);
        if (this.again.delete(accountId)) this.kick(accountId);
      });
    this.running.set(accountId, round);
  }

  /** Kicks every account with a receiving bind. */
  sweep(): void {
    for (const accountId of this.registry.receivingAccounts()) this.kick(accountId);
  }

  /** Stops claiming and waits for the rounds in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running.values()]);
  }

  private async drain(accountId: string): Promise<void> {
    while (!this.stopped) {
      const sessions = this.registry.receivers(accountId);
      if (sessions.length === 0) return;
      const rows = await this.claim(accountId);
      if (rows.length === 0) return;
      await Promise.all(rows.map((row, index) => this.deliver(row, sessions[index % sessions.length]!)));
    }
  }
}
