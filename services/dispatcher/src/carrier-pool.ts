import type pg from "pg";
import type { Logger } from "@sms/logger";
import { SmppClient } from "@sms/smpp";
import { carriersFor, type RouteEntry } from "./routing";

export interface CarrierRow {
  id: string;
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType: string;
  useTls: boolean;
  transmitterBinds: number;
  windowSize: number;
  submitsPerSecond: number;
}

interface CarrierBinds {
  carrier: CarrierRow;
  fingerprint: string;
  clients: SmppClient[];
  next: number;
}

export interface CarrierPoolOptions {
  responseTimeoutMs: number;
  enquireLinkIntervalMs: number;
}

/**
 * The dispatcher's transmitter binds: carriers and routes are data (admin CLI), read
 * from PostgreSQL and refreshed; each carrier gets `transmitter_binds` sessions that
 * reconnect on their own. A changed carrier row rebuilds its binds.
 */
export class CarrierPool {
  private binds = new Map<string, CarrierBinds>();
  private routes: RouteEntry[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly options: CarrierPoolOptions,
  ) {}

  async refresh(): Promise<void> {
    const { rows: carriers } = await this.pool.query(
      `SELECT id, host, port, system_id, password, system_type, use_tls, transmitter_binds, window_size, submits_per_second
       FROM carriers WHERE enabled`,
    );
    const { rows: routes } = await this.pool.query(
      "SELECT prefix, carrier_id, priority FROM routes WHERE enabled",
    );
    this.routes = routes.map((r) => ({ prefix: r.prefix, carrierId: r.carrier_id, priority: r.priority }));
    const wanted = new Set<string>();
    for (const row of carriers) {
      const carrier: CarrierRow = {
        id: row.id,
        host: row.host,
        port: row.port,
        systemId: row.system_id,
        password: row.password,
        systemType: row.system_type,
        useTls: row.use_tls,
        transmitterBinds: row.transmitter_binds,
        windowSize: row.window_size,
        submitsPerSecond: row.submits_per_second,
      };
      wanted.add(carrier.id);
      const fingerprint = JSON.stringify(carrier);
      const existing = this.binds.get(carrier.id);
      if (existing?.fingerprint === fingerprint) continue;
      if (existing) await this.closeBinds(existing);
      this.binds.set(carrier.id, { carrier, fingerprint, clients: this.openBinds(carrier), next: 0 });
    }
    for (const [id, binds] of this.binds) {
      if (!wanted.has(id)) {
        this.binds.delete(id);
        await this.closeBinds(binds);
      }
    }
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
    binds.next = (binds.next + 1) % bound.length;
    const rotated = [...bound.slice(binds.next), ...bound.slice(0, binds.next)];
    return rotated.reduce((best, client) => (client.outstanding < best.outstanding ? client : best));
  }

  /** Sessions bound and total, per carrier (for readiness and metrics). */
  status(): Record<string, { bound: number; total: number }> {
    return Object.fromEntries(
      [...this.binds].map(([id, b]) => [
        id,
        { bound: b.clients.filter((c) => c.isBound).length, total: b.clients.length },
      ]),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.binds.values()].map((binds) => this.closeBinds(binds)));
    this.binds.clear();
  }

  private openBinds(carrier: CarrierRow): SmppClient[] {
    return Array.from({ length: Math.max(1, carrier.transmitterBinds) }, (_, index) => {
      const client = new SmppClient({
        host: carrier.host,
        port: carrier.port,
        systemId: carrier.systemId,
        password: carrier.password,
        systemType: carrier.systemType,
        bindType: "transmitter",
        tls: carrier.useTls ? {} : undefined,
        windowSize: carrier.windowSize,
        responseTimeoutMs: this.options.responseTimeoutMs,
        enquireLinkIntervalMs: this.options.enquireLinkIntervalMs,
      });
      client.on("state", (state, reason) =>
        this.logger.info("carrier bind state", { carrier: carrier.id, bind: index, state, reason }),
      );
      client.start();
      return client;
    });
  }

  private async closeBinds(binds: CarrierBinds): Promise<void> {
    await Promise.all(binds.clients.map((client) => client.close().catch(() => undefined)));
  }
}
