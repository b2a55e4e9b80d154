import type { Carrier, PrismaClient } from "@sms/db";
import type { Logger } from "@sms/logger";
import { needsSealing, openCarrierPasswords, sealCarrierPassword, type SecretBox } from "@sms/secret-box";
import type { DeliverSmHandler } from "@sms/carrier-receipts";
import { CarrierBindSets, connectionOptions, SmppClient, type BindType } from "@sms/smpp";
import { carriersFor, type RouteEntry } from "./routing";

/** What a transmitter bind and the router need to know about a carrier (the generated Prisma type, trimmed). */
export type CarrierRow = Pick<
  Carrier,
  | "id"
  | "host"
  | "port"
  | "systemId"
  | "password"
  | "systemType"
  | "useTls"
  | "transmitterBinds"
  | "transceiverBinds"
  | "windowSize"
  | "submitsPerSecond"
  | "receiptIdForm"
  | "gsm7Encoding"
>;

const CARRIER_FIELDS = {
  id: true,
  host: true,
  port: true,
  systemId: true,
  password: true,
  passwordSealed: true,
  systemType: true,
  useTls: true,
  transmitterBinds: true,
  transceiverBinds: true,
  windowSize: true,
  submitsPerSecond: true,
  receiptIdForm: true,
  gsm7Encoding: true,
} as const;

export interface CarrierPoolOptions {
  responseTimeoutMs: number;
  enquireLinkIntervalMs: number;
  /** Opens (and seals) the carriers' passwords: SECRET_ENCRYPTION_KEY. */
  box: SecretBox;
  /** Receipts (and MO) arriving on transceiver binds: deliver_sm_resp waits for it. */
  onDeliverSm: DeliverSmHandler;
  /** A deliver_sm refused on a transmitter bind (ESME_RINVBNDSTS): counted, as the carrier may want transceivers. */
  onDeliverSmRefused: (carrierId: string) => void;
}

/** The binds a carrier gets: transceivers when it has any (docs/decisions.md#transceiver-binds), else transmitters. */
export function bindsOf(carrier: Pick<CarrierRow, "transmitterBinds" | "transceiverBinds">): {
  bindType: Extract<BindType, "transmitter" | "transceiver">;
  count: number;
} {
  return carrier.transceiverBinds > 0
    ? { bindType: "transceiver", count: carrier.transceiverBinds }
    : { bindType: "transmitter", count: Math.max(1, carrier.transmitterBinds) };
}

/**
 * The dispatcher's binds: carriers and routes are data (admin CLI), read from PostgreSQL
 * and refreshed; each carrier gets `transmitter_binds` transmitter sessions, or
 * `transceiver_binds` transceiver sessions whose receipts this process stores, all
 * reconnecting on their own. A changed carrier row rebuilds its binds.
 */
export class CarrierPool {
  private readonly binds: CarrierBindSets<CarrierRow>;
  /** Where each carrier's round robin is. */
  private readonly next = new Map<string, number>();
  private routes: RouteEntry[] = [];

  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: CarrierPoolOptions,
  ) {
    this.binds = new CarrierBindSets<CarrierRow>({
      // What the binds are made of: a changed receipt_id_form or gsm7_encoding is taken without a rebind.
      fingerprint: (carrier) =>
        JSON.stringify({ ...carrier, receiptIdForm: undefined, gsm7Encoding: undefined }),
      open: (carrier) => this.openBinds(carrier),
    });
  }

  async refresh(): Promise<void> {
    const rows = await this.prisma.carrier.findMany({ where: { enabled: true }, select: CARRIER_FIELDS });
    await this.sealPasswordsInClear(rows);
    // The password in clear, for the binds (and their fingerprint: a fresh seal must not rebind).
    const carriers = openCarrierPasswords(this.options.box, rows, this.logger);
    // Ordered by carrier id so equal prefix and priority break ties as `admin route list --for` shows them.
    this.routes = await this.prisma.route.findMany({
      where: { enabled: true },
      orderBy: { carrierId: "asc" },
      select: { prefix: true, carrierId: true, priority: true },
    });
    await this.binds.reconcile(carriers);
  }

  /** Carriers to try for a destination, best first, with their row. */
  candidates(destination: string): CarrierRow[] {
    return carriersFor(this.routes, destination)
      .map((id) => this.binds.get(id)?.carrier)
      .filter((carrier): carrier is CarrierRow => carrier !== undefined);
  }

  /** A bound session of the carrier (round robin, least busy first), or undefined when it is down. */
  clientFor(carrierId: string): SmppClient | undefined {
    const binds = this.binds.get(carrierId);
    if (!binds) return undefined;
    const bound = binds.clients.filter((client) => client.isBound);
    if (bound.length === 0) return undefined;
    const next = ((this.next.get(carrierId) ?? 0) + 1) % bound.length;
    this.next.set(carrierId, next);
    const rotated = [...bound.slice(next), ...bound.slice(0, next)];
    return rotated.reduce((best, client) => (client.outstanding < best.outstanding ? client : best));
  }

  /** Sessions bound and total, and submits outstanding over the bound sessions' windows, per carrier (for readiness and metrics). */
  status(): Record<
    string,
    {
      bindType: "transmitter" | "transceiver";
      bound: number;
      total: number;
      outstanding: number;
      window: number;
    }
  > {
    return Object.fromEntries(
      this.binds.entries().map(([id, b]) => {
        const bound = b.clients.filter((c) => c.isBound);
        const outstanding = bound.reduce((sum, c) => sum + c.outstanding, 0);
        return [
          id,
          {
            bindType: bindsOf(b.carrier).bindType,
            bound: bound.length,
            total: b.clients.length,
            outstanding,
            window: bound.length * b.carrier.windowSize,
          },
        ];
      }),
    );
  }

  /**
   * Carrier passwords are sealed at rest, and only a service holding the key
   * can seal: this is the data migration of 20261125130000 and it runs on every refresh, so a
   * password written in clear (an admin CLI without the key, plain SQL) is sealed within one.
   * The update matches the clear value it read, so a newer write in between is not lost.
   */
  private async sealPasswordsInClear(
    rows: ReadonlyArray<Pick<Carrier, "id" | "password" | "passwordSealed">>,
  ) {
    for (const row of rows.filter(needsSealing)) {
      const sealed = sealCarrierPassword(this.options.box, row.id, row.password);
      const { count } = await this.prisma.carrier.updateMany({
        where: { id: row.id, password: row.password, passwordSealed: row.passwordSealed },
        data: { password: "", passwordSealed: sealed },
      });
      if (count === 1) this.logger.info("sealed a carrier password stored in clear", { carrierId: row.id });
    }
  }

  async close(): Promise<void> {
    await this.binds.close();
  }

  private openBinds(carrier: CarrierRow): SmppClient[] {
    const { bindType, count } = bindsOf(carrier);
    return Array.from({ length: count }, (_, index) => {
      const client = new SmppClient({
        ...connectionOptions(carrier),
        bindType,
        windowSize: carrier.windowSize,
        responseTimeoutMs: this.options.responseTimeoutMs,
        enquireLinkIntervalMs: this.options.enquireLinkIntervalMs,
        onDeliverSm: (pdu) => this.options.onDeliverSm(carrier.id, pdu),
        onDeliverSmRefused: () => this.options.onDeliverSmRefused(carrier.id),
      });
      client.on("state", (state, reason) =>
        this.logger.info("carrier bind state", { carrier: carrier.id, bind: index, bindType, state, reason }),
      );
      client.start();
      return client;
    });
  }
}
