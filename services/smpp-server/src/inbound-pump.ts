import type pg from "pg";
import type { Logger } from "@sms/logger";
import { CommandStatus, NotBoundError, type SmppServerSession } from "@sms/smpp";
import { AccountPump } from "./account-pump";
import type { SessionRegistry } from "./sessions";

/** TON international, NPI E.164: inbound senders and our numbers are E.164 when they are numbers. */
const TON_INTERNATIONAL = 1;
const TON_ALPHANUMERIC = 5;
const NPI_E164 = 1;

interface ClaimedPart {
  id: string;
  source_addr: string;
  destination_addr: string;
  esm_class: number;
  data_coding: number;
  short_message: Buffer;
}

/**
 * Writes the account's inbound messages (smpp_inbound, a row per part) as deliver_sm esm_class 0
 * to its receiving binds (AccountPump), held while no bind takes them.
 */
export class InboundPump extends AccountPump<ClaimedPart> {
  constructor(
    private readonly pool: pg.Pool,
    registry: SessionRegistry,
    logger: Logger,
    private readonly options: { claimSize: number; retryMs: number },
  ) {
    super(registry, logger, "inbound");
  }

  protected async claim(accountId: string): Promise<ClaimedPart[]> {
    const { rows } = await this.pool.query<ClaimedPart>({
      name: "smpp-claim-inbound",
      text: `UPDATE smpp_inbound SET attempts = attempts + 1,
               next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
             WHERE id IN (SELECT id FROM smpp_inbound WHERE account_id = $1 AND next_attempt_at <= now()
                          ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
             RETURNING id::text, source_addr, destination_addr, esm_class, data_coding, short_message`,
      values: [accountId, this.options.claimSize, this.options.retryMs],
    });
    // In id order, so a customer reading parts in arrival order sees them in sequence.
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  protected async deliver(part: ClaimedPart, session: SmppServerSession): Promise<void> {
    const isNumber = /^\+?[0-9]+$/.test(part.source_addr);
    try {
      const response = await session.deliver({
        source_addr_ton: isNumber ? TON_INTERNATIONAL : TON_ALPHANUMERIC,
        source_addr_npi: isNumber ? NPI_E164 : 0,
        source_addr: part.source_addr.replace(/^\+/, ""),
        dest_addr_ton: part.destination_addr.startsWith("+") ? TON_INTERNATIONAL : 0,
        dest_addr_npi: NPI_E164,
        destination_addr: part.destination_addr.replace(/^\+/, ""),
        esm_class: part.esm_class,
        data_coding: part.data_coding,
        short_message: part.short_message,
      });
      if (response.command_status !== CommandStatus.ESME_ROK) return;
      await this.pool.query("DELETE FROM smpp_inbound WHERE id = $1", [part.id]);
    } catch (error) {
      // Never written (the bind went first): due again at once, for the next bind to take.
      if (error instanceof NotBoundError)
        await this.pool
          .query("UPDATE smpp_inbound SET next_attempt_at = now() WHERE id = $1", [part.id])
          .catch(() => undefined);
      // No answer: the claim lapses after retryMs and the part is sent again.
    }
  }
}
