import type { Logger } from "@sms/logger";
import type { DeliverSmHandler } from "@sms/receipts";
import { SmppClient } from "@sms/smpp";
import type { CarrierEndpoint } from "./carriers";

export interface CarrierBindsOptions {
  logger: Logger;
  onDeliverSm: DeliverSmHandler;
  /** @defaultValue 30000 */
  enquireLinkIntervalMs?: number;
  /** @defaultValue 10000 */
  responseTimeoutMs?: number;
}

interface CarrierBindSet {
  /** Connection settings these binds were opened with: a change means close and bind again. */
  fingerprint: string;
  clients: SmppClient[];
}

/**
 * The receiver binds of every enabled carrier (`receiver_binds` each, reconnecting with
 * backoff), reconciled with the carriers table on each refresh.
 */
export class CarrierBinds {
  private readonly sets = new Map<string, CarrierBindSet>();

  constructor(private readonly options: CarrierBindsOptions) {}

  /** Opens binds for new carriers and closes those of carriers disabled, removed or changed. */
  async reconcile(carriers: readonly CarrierEndpoint[]): Promise<void> {
    const wanted = new Map(carriers.map((carrier) => [carrier.id, carrier]));
    const closing: Array<Promise<void>> = [];
    for (const [id, set] of this.sets) {
      const carrier = wanted.get(id);
      if (carrier && fingerprintOf(carrier) === set.fingerprint) continue;
      this.sets.delete(id);
      this.options.logger.info("closing receiver binds", {
        carrier_id: id,
        reason: carrier ? "changed" : "disabled or removed",
      });
      closing.push(closeAll(set.clients));
    }
    await Promise.all(closing);
    for (const carrier of carriers) {
      if (this.sets.has(carrier.id)) continue;
      const clients = Array.from({ length: Math.max(0, carrier.receiverBinds) }, (_, i) =>
        this.open(carrier, i),
      );
      this.sets.set(carrier.id, { fingerprint: fingerprintOf(carrier), clients });
      this.options.logger.info("opening receiver binds", { carrier_id: carrier.id, binds: clients.length });
    }
  }

  /** Binds per carrier, and how many are bound now. */
  summary(): Array<{ carrierId: string; binds: number; bound: number }> {
    return [...this.sets].map(([carrierId, set]) => ({
      carrierId,
      binds: set.clients.length,
      bound: set.clients.filter((client) => client.isBound).length,
    }));
  }

  /** Unbinds and closes every bind. */
  async close(): Promise<void> {
    const sets = [...this.sets.values()];
    this.sets.clear();
    await Promise.all(sets.map((set) => closeAll(set.clients)));
  }

  private open(carrier: CarrierEndpoint, index: number): SmppClient {
    const logger = this.options.logger.child({ carrier_id: carrier.id, bind: index });
    const client = new SmppClient({
      host: carrier.host,
      port: carrier.port,
      systemId: carrier.systemId,
      password: carrier.password,
      systemType: carrier.systemType,
      bindType: "receiver",
      tls: carrier.useTls ? {} : undefined,
      reconnect: true,
      enquireLinkIntervalMs: this.options.enquireLinkIntervalMs ?? 30_000,
      responseTimeoutMs: this.options.responseTimeoutMs ?? 10_000,
      onDeliverSm: (pdu) => this.options.onDeliverSm(carrier.id, pdu),
    });
    client.on("state", (state, reason) => {
      if (state === "disconnected")
        logger.warn("receiver bind lost", { reason, error: client.lastError?.message });
      else logger.info("receiver bind state", { state, reason });
    });
    client.start();
    return client;
  }
}

function fingerprintOf(carrier: CarrierEndpoint): string {
  const { host, port, systemId, password, systemType, useTls, receiverBinds } = carrier;
  return JSON.stringify([host, port, systemId, password, systemType, useTls, receiverBinds]);
}

async function closeAll(clients: SmppClient[]): Promise<void> {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
}
