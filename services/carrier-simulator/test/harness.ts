import { SmppClient, type DeliverSm, type SmppClientOptions, type SubmitSm } from "@sms/smpp";
import { createLogger } from "@sms/logger";
import { createCarrierSimulator, type CarrierSimulator, type SimulatorOptions } from "../src/simulator";

/** Simulators and clients a test started, closed by `closeAll()` in afterEach. */
export class Harness {
  private readonly simulators: CarrierSimulator[] = [];
  private readonly clients: SmppClient[] = [];

  /** A simulator on ephemeral ports of 127.0.0.1, receipts after 10 ms unless told otherwise. */
  async simulator(options: SimulatorOptions = {}): Promise<CarrierSimulator> {
    const simulator = await createCarrierSimulator({
      logger: createLogger("carrier-simulator-test"),
      ...options,
      settings: { receiptDelayMs: 10, receiptRetryMs: 50, ...options.settings },
    });
    this.simulators.push(simulator);
    return simulator;
  }

  /** A bound client of `simulator` (port taken from it), fast reconnects. */
  async client(
    simulator: { smppPort: number },
    options: Partial<SmppClientOptions> = {},
  ): Promise<SmppClient> {
    const client = new SmppClient({
      host: "127.0.0.1",
      port: simulator.smppPort,
      systemId: "acme",
      password: "secret",
      backoff: { initialMs: 20, maxMs: 200 },
      ...options,
    });
    this.clients.push(client);
    await client.connect(5000);
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((client) => client.close()));
    await Promise.all(this.simulators.splice(0).map((simulator) => simulator.close()));
  }
}

/** A one-segment submit with a receipt requested; text in ASCII letters (the same bytes in GSM-7). */
export function segment(to: string, text = "Hello", extra: Partial<SubmitSm> = {}): SubmitSm {
  return {
    source_addr: "ACME",
    destination_addr: to,
    data_coding: 0,
    short_message: Buffer.from(text, "ascii"),
    registered_delivery: 1,
    ...extra,
  };
}

/** Calls the simulator's control API. */
export async function control(
  simulator: CarrierSimulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`http://127.0.0.1:${simulator.httpPort}${path}`, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Collects every deliver_sm a client is handed. */
export function receiptCollector(): { received: DeliverSm[]; onDeliverSm: (pdu: DeliverSm) => void } {
  const received: DeliverSm[] = [];
  return { received, onDeliverSm: (pdu) => void received.push(pdu) };
}
