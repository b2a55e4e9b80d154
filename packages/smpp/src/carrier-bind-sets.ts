import type { SmppClient, SmppClientOptions } from "./client";

/** How a carrier is reached (a carriers row, password opened). */
export interface CarrierConnection {
  id: string;
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType: string;
  useTls: boolean;
}

/** The options of a bind to the carrier that come from its row. */
export function connectionOptions(
  carrier: CarrierConnection,
): Pick<SmppClientOptions, "host" | "port" | "systemId" | "password" | "systemType" | "tls"> {
  return {
    host: carrier.host,
    port: carrier.port,
    systemId: carrier.systemId,
    password: carrier.password,
    systemType: carrier.systemType,
    tls: carrier.useTls ? {} : undefined,
  };
}

export interface CarrierBindSetsOptions<C extends CarrierConnection> {
  /** What the binds are made of: when it changes, the carrier's binds are closed and opened again. */
  fingerprint(carrier: C): string;
  /** Opens (and starts) the carrier's binds. */
  open(carrier: C): SmppClient[];
  /** Told before a carrier's binds close because its row changed or it is no longer wanted. */
  onClose?(carrierId: string, reason: "changed" | "removed"): void;
}

/**
 * N binds per carrier kept in step with the carriers table: the dispatcher's transmitter or
 * transceiver binds and dlr-ingest's receiver binds. Each refresh hands the wanted carriers
 * to `reconcile`: a new carrier's binds open, a removed or changed one's close (a changed one's
 * open again), and an unchanged one keeps its binds with the row's other fields refreshed.
 */
export class CarrierBindSets<C extends CarrierConnection> {
  private readonly sets = new Map<string, { carrier: C; fingerprint: string; clients: SmppClient[] }>();

  constructor(private readonly options: CarrierBindSetsOptions<C>) {}

  async reconcile(carriers: readonly C[]): Promise<void> {
    const wanted = new Map(carriers.map((carrier) => [carrier.id, carrier]));
    const closing: Array<Promise<void>> = [];
    for (const [id, set] of this.sets) {
      const carrier = wanted.get(id);
      if (carrier && this.options.fingerprint(carrier) === set.fingerprint) {
        set.carrier = carrier;
        continue;
      }
      this.sets.delete(id);
      this.options.onClose?.(id, carrier ? "changed" : "removed");
      closing.push(closeClients(set.clients));
    }
    await Promise.all(closing);
    for (const carrier of carriers) {
      if (this.sets.has(carrier.id)) continue;
      const fingerprint = this.options.fingerprint(carrier);
      this.sets.set(carrier.id, { carrier, fingerprint, clients: this.options.open(carrier) });
    }
  }

  /** The carrier's row as last reconciled, and its binds. */
  get(carrierId: string): { carrier: C; clients: readonly SmppClient[] } | undefined {
    return this.sets.get(carrierId);
  }

  entries(): Array<[string, { carrier: C; clients: readonly SmppClient[] }]> {
    return [...this.sets];
  }

  /** Unbinds and closes every bind. */
  async close(): Promise<void> {
    const sets = [...this.sets.values()];
    this.sets.clear();
    await Promise.all(sets.map((set) => closeClients(set.clients)));
  }
}

async function closeClients(clients: readonly SmppClient[]): Promise<void> {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
}
