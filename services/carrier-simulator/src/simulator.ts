import crypto from "node:crypto";
import { once } from "node:events";
import type http from "node:http";
import net from "node:net";
import { createLogger, type Logger } from "@sms/logger";
import { CommandStatus, SmppServerSession, type BindType } from "@sms/smpp";
import { createControlServer } from "./control-api";
import { buildInboundParts, deliverInbound, deliverInboundBatch } from "./inbound";
import { MessageLog, type MessageQuery, type ReceivedMessage } from "./message-log";
import { ReceiptSender } from "./receipts";
import {
  applyControlUpdate,
  DEFAULT_RUNTIME_SETTINGS,
  type ControlUpdate,
  type RuntimeSettings,
} from "./settings";
import { createRequestHandler, type SmscState } from "./submit-handler";
import { PerSecondLimiter } from "./throttle";

/** How to run a simulator; every field has a default. */
export interface SimulatorOptions {
  /** @defaultValue "127.0.0.1" */
  host?: string;
  /** 0 picks a free port. @defaultValue 0 */
  smppPort?: number;
  /** 0 picks a free port. @defaultValue 0 */
  httpPort?: number;
  /** Accepted system_id → password; undefined accepts any bind. */
  accounts?: Record<string, string>;
  /**
   * Bind types accepted; others are refused with ESME_RBINDFAIL. ["transceiver"] plays an SMSC
   * that knows nothing else (Kannel's default). @defaultValue every type
   */
  bindTypes?: readonly BindType[];
  /** Received messages kept. @defaultValue 10000 */
  recordLimit?: number;
  /** deliver_sm outstanding per bind. @defaultValue 10 */
  windowSize?: number;
  /** How long a deliver_sm waits for its response. @defaultValue 10000 */
  responseTimeoutMs?: number;
  /** Silent binds are unbound after this long; 0 never. @defaultValue 120000 */
  inactivityTimeoutMs?: number;
  /** Initial runtime behaviour (POST /control changes it). */
  settings?: Partial<RuntimeSettings>;
  logger?: Logger;
}

/** A running simulator. */
export interface CarrierSimulator {
  smppPort: number;
  httpPort: number;
  /** The current runtime settings (a copy). */
  settings(): RuntimeSettings;
  /** Changes runtime settings, as POST /control does. */
  update(change: ControlUpdate): RuntimeSettings;
  /** What was received, as GET /messages returns it. */
  messages(query?: MessageQuery): ReceivedMessage[];
  /** One received message by the message_id we gave it, while kept. */
  findMessage(messageId: string): ReceivedMessage | undefined;
  stats(): SimulatorStats;
  /** Forgets received messages and zeroes the counters. */
  reset(): void;
  /** Starts the message_id counter over, as a carrier that restarts does (ids are reused). */
  restartIdCounter(): void;
  /** Closes every SMPP connection abruptly (no unbind), as a carrier outage would. */
  dropConnections(): void;
  /** Unbinds every session and stops both listeners. */
  close(): Promise<void>;
}

export interface SimulatorStats {
  submits: SmscState["counters"];
  receipts: { sent: number; acknowledged: number; pending: number };
  binds: Array<{ systemId: string | undefined; state: string; outstandingDeliverSm: number }>;
  /** Binds refused for their type (bindTypes), since start. */
  bindsRefusedForType: number;
}

/** Starts an SMPP v3.4 SMSC simulator and its HTTP control API. */
export async function createCarrierSimulator(options: SimulatorOptions = {}): Promise<CarrierSimulator> {
  const logger = options.logger ?? createLogger("carrier-simulator");
  const host = options.host ?? "127.0.0.1";
  const sessions = new Set<SmppServerSession>();
  const settings: RuntimeSettings = { ...DEFAULT_RUNTIME_SETTINGS, ...options.settings };
  const idPrefix = crypto.randomBytes(4).toString("hex");
  let idCounter = 0;
  let closing = false;
  let bindsRefusedForType = 0;
  const bindTypes = new Set<BindType>(options.bindTypes ?? ["transmitter", "receiver", "transceiver"]);
  const state: SmscState = {
    settings,
    log: new MessageLog(options.recordLimit ?? 10000),
    receipts: new ReceiptSender(
      () => sessions,
      () => settings.receiptRetryMs,
    ),
    limiter: new PerSecondLimiter(),
    counters: { received: 0, accepted: 0, refused: 0, inFlight: 0, maxInFlightPerBind: 0 },
    magicTries: new Map(),
    // Hex, unique across restarts thanks to the random prefix; 16 characters fit any message_id field.
    // Decimal: a bare counter, as many SMSCs give (and reuse after restartIdCounter).
    nextMessageId: () =>
      settings.messageIds === "decimal"
        ? String(++idCounter)
        : `${idPrefix}${(++idCounter).toString(16).padStart(8, "0")}`,
  };
  const onRequest = createRequestHandler(state);

  const smppServer = net.createServer((socket) => {
    if (closing) return socket.destroy();
    const session = new SmppServerSession(socket, {
      systemId: "SIMSMSC",
      windowSize: options.windowSize ?? 10,
      responseTimeoutMs: options.responseTimeoutMs ?? 10000,
      inactivityTimeoutMs: options.inactivityTimeoutMs ?? 120000,
      authenticate: (bind) => {
        if (!bindTypes.has(bind.bindType)) {
          bindsRefusedForType += 1;
          return CommandStatus.ESME_RBINDFAIL;
        }
        if (!options.accounts) return CommandStatus.ESME_ROK;
        const password = options.accounts[bind.systemId];
        if (password === undefined) return CommandStatus.ESME_RINVSYSID;
        return password === bind.password ? CommandStatus.ESME_ROK : CommandStatus.ESME_RINVPASWD;
      },
      onRequest,
    });
    sessions.add(session);
    session.on("state", (sessionState, reason) => {
      logger.info("bind state", { system_id: session.bind?.systemId, state: sessionState, reason });
      if (sessionState === "closed") sessions.delete(session);
    });
  });
  const controlServer = createControlServer({
    settings: () => structuredClone(settings),
    update: (change) => structuredClone(applyControlUpdate(settings, change)),
    messages: (query) => state.log.find(query),
    stats: () => stats(),
    reset: () => reset(),
    dropConnections: () => dropConnections(),
    isReady: () => !closing && smppServer.listening,
    injectInbound: async (request) => deliverInbound(sessions, request, buildInboundParts(request)),
    injectInboundBatch: async ({ messages }) => deliverInboundBatch(sessions, messages),
  });
  const stats = (): SimulatorStats => ({
    submits: { ...state.counters },
    receipts: { ...state.receipts.counters, pending: state.receipts.totalPending },
    binds: [...sessions].map((session) => ({
      systemId: session.bind?.systemId,
      state: session.state,
      outstandingDeliverSm: session.outstanding,
    })),
    bindsRefusedForType,
  });
  const reset = () => {
    state.log.clear();
    state.magicTries.clear();
    Object.assign(state.counters, {
      received: 0,
      accepted: 0,
      refused: 0,
      maxInFlightPerBind: state.counters.inFlight,
    });
  };
  const dropConnections = () => {
    for (const session of sessions) session.destroy("dropped by the control API");
  };

  await listen(smppServer, options.smppPort ?? 0, host);
  await listen(controlServer, options.httpPort ?? 0, host);
  const smppPort = (smppServer.address() as net.AddressInfo).port;
  const httpPort = (controlServer.address() as net.AddressInfo).port;
  logger.info("carrier simulator listening", { smpp_port: smppPort, http_port: httpPort });

  return {
    smppPort,
    httpPort,
    settings: () => structuredClone(settings),
    update: (change) => structuredClone(applyControlUpdate(settings, change)),
    messages: (query = {}) => state.log.find(query),
    findMessage: (messageId) => state.log.get(messageId),
    stats,
    reset,
    restartIdCounter: () => {
      idCounter = 0;
    },
    dropConnections,
    close: async () => {
      if (closing) return;
      closing = true;
      const stopped = once(smppServer, "close");
      smppServer.close();
      // Unbind politely, but a bind that does not answer does not hold the shutdown.
      await Promise.race([
        Promise.all([...sessions].map((session) => session.close("simulator shutting down"))),
        delay(2000),
      ]);
      for (const session of sessions) session.destroy("simulator shut down");
      await stopped;
      state.receipts.close();
      controlServer.closeAllConnections();
      await new Promise((resolve) => controlServer.close(resolve));
      logger.info("carrier simulator stopped");
    },
  };
}

function listen(server: net.Server | http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
