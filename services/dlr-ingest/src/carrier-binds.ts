import type { Logger } from "@sms/logger";
import type { DeliverSmHandler } from "@sms/carrier-receipts";
import { CarrierBindSets, connectionOptions, SmppClient } from "@sms/smpp";
import type { CarrierEndpoint } from "./carriers";

export interface CarrierBindsOptions {
  logger: Logger;
  onDeliverSm: DeliverSmHandler;
  /** @defaultValue 30000 */
  enquireLinkIntervalMs?: number;
  /** @defaultValue 10000 */
  responseTimeoutMs?: number;
}

/**
 * The receiver binds of every enabled carrier (`receiver_binds` each, reconnecting with
 * backoff), reconciled with the carriers table on each refresh (CarrierBindSets).
 */
export class CarrierBinds {
  private readonly sets: CarrierBindSets<CarrierEndpoint>;

  constructor(private readonly options: CarrierBindsOptions) {
    this.sets = new CarrierBindSets<CarrierEndpoint>({
      fingerprint: ({ host, port, systemId, password, systemType, useTls, receiverBinds }) =>
        JSON.stringify([host, port, systemId, password, systemType, useTls, receiverBinds]),
      open: (carrier) => {
        const clients = Array.from({ length: Math.max(0, carrier.receiverBinds) }, (_, i) =>
          this.open(carrier, i),
        );
        options.logger.info("opening receiver binds", { carrier_id: carrier.id, binds: clients.length });
        return clients;
      },
      onClose: (carrierId, reason) =>
        options.logger.info("closing receiver binds", {
          carrier_id: carrierId,
          reason: reason === "changed" ? "changed" : "disabled or removed",
        }),
    });
  }

  /** Opens binds for new carriers and closes those of carriers disabled, removed or changed. */
  reconcile(carriers: readonly CarrierEndpoint[]): Promise<void> {
    return this.sets.reconcile(carriers);
  }

  /** Binds per carrier, and how many are bound now. */
  summary(): Array<{ carrierId: string; binds: number; bound: number }> {
    return this.sets.entries().map(([carrierId, set]) => ({
      carrierId,
      binds: set.clients.length,
      bound: set.clients.filter((client) => client.isBound).length,
    }));
  }

  /** Unbinds and closes every bind. */
  close(): Promise<void> {
    return this.sets.close();
  }

  private open(carrier: CarrierEndpoint, index: number): SmppClient {
    const logger = this.options.logger.child({ carrier_id: carrier.id, bind: index });
    const client = new SmppClient({
      ...connectionOptions(carrier),
      bindType: "receiver",
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
