import { EventEmitter, once } from "node:events";
import net from "node:net";
import tls from "node:tls";
import { computeBackoff, type BackoffOptions } from "./backoff";
import { isKnownCommand, type Pdu, type PduFields } from "./codec";
import { SmppConnection } from "./connection";
import { BindError, NotBoundError } from "./errors";
import {
  INTERFACE_VERSION_34,
  type BindType,
  type DeliverSm,
  type SubmitSm,
  type SubmitSmResp,
} from "./pdu-types";
import { CommandStatus } from "./status";

/** Where the client is: connecting covers TCP/TLS connect and bind. */
export type ClientState = "idle" | "connecting" | "bound" | "disconnected" | "closed";

/** Options of an ESME session toward an SMSC. */
export interface SmppClientOptions {
  host: string;
  port: number;
  systemId: string;
  password: string;
  /** @defaultValue "transceiver" */
  bindType?: BindType;
  /** @defaultValue "" */
  systemType?: string;
  /** @defaultValue "" */
  addressRange?: string;
  /** TLS; the server certificate is always verified (rejectUnauthorized is forced true). @defaultValue off */
  tls?: Pick<tls.ConnectionOptions, "ca" | "cert" | "key" | "servername">;
  /** Our requests outstanding at once. @defaultValue 10 */
  windowSize?: number;
  /** How long a request waits for its response. @defaultValue 10000 */
  responseTimeoutMs?: number;
  /** TCP/TLS connect deadline (the bind then has responseTimeoutMs). @defaultValue 10000 */
  connectTimeoutMs?: number;
  /** enquire_link period while bound; 0 turns it off. @defaultValue 30000 */
  enquireLinkIntervalMs?: number;
  /** Reconnect and re-bind after the connection drops or a bind fails. @defaultValue true */
  reconnect?: boolean;
  /** Reconnect delays. @defaultValue {initialMs: 500, maxMs: 30000, factor: 2, jitter: 0.5} */
  backoff?: BackoffOptions;
  /** In-flight requests get this long to be answered before close() unbinds. @defaultValue 5000 */
  closeTimeoutMs?: number;
  /**
   * Handles each deliver_sm. deliver_sm_resp is sent only after it resolves, with the
   * status it returns (ESME_ROK when it returns nothing); when it throws, with
   * ESME_RX_T_APPN so the carrier sends it again later. Without it every deliver_sm is acknowledged.
   */
  onDeliverSm?: (pdu: DeliverSm) => Promise<number | void> | number | void;
  /**
   * Told of each deliver_sm refused with ESME_RINVBNDSTS because this is a transmitter bind
   * (a carrier that sends receipts on the bind it got the submit on wants transceiver binds).
   */
  onDeliverSmRefused?: (pdu: DeliverSm) => void;
}

interface ClientEvents {
  /** Every state change, with the reason when there is one. */
  state: [state: ClientState, reason: string | undefined];
}

/**
 * An ESME session (SMPP v3.4) toward one SMSC: connect, bind, a window of submits with
 * response timeouts, enquire_link, deliver_sm acknowledged after its handler, reconnect
 * with backoff, unbind on close. Listen to "state" for bound/disconnected.
 */
export class SmppClient extends EventEmitter<ClientEvents> {
  private currentState: ClientState = "idle";
  private connection: SmppConnection | undefined;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private enquireTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** Why the last connection or bind failed, if it did. */
  lastError: Error | undefined;

  constructor(private readonly options: SmppClientOptions) {
    super();
  }

  /** The current state. */
  get state(): ClientState {
    return this.currentState;
  }

  /** True while bound and not closing: requests can be sent. */
  get isBound(): boolean {
    return this.currentState === "bound" && !this.stopping;
  }

  /** Requests written and not yet answered on the current connection. */
  get outstanding(): number {
    return this.connection?.window.outstanding ?? 0;
  }

  /** Starts connecting (and reconnecting); does nothing when already started. */
  start(): void {
    if (this.currentState !== "idle") return;
    this.open();
  }

  /** Starts and resolves once bound; rejects after `timeoutMs` or, without reconnect, on the first failure. */
  connect(timeoutMs = 10000): Promise<void> {
    this.start();
    return this.waitUntilBound(timeoutMs);
  }

  /** Resolves when bound; rejects with the last error (or NotBoundError) after `timeoutMs` or once closed. */
  async waitUntilBound(timeoutMs = 10000): Promise<void> {
    if (this.isBound) return;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      while (!this.isBound) {
        if (this.currentState === "closed") throw this.lastError ?? new NotBoundError("client closed");
        await once(this, "state", { signal });
      }
    } catch (error) {
      if (signal.aborted) throw this.lastError ?? new NotBoundError(`not bound within ${timeoutMs} ms`);
      throw error;
    }
  }

  /**
   * Submits one segment; resolves with the submit_sm_resp whatever its command_status.
   * Rejects with NotBoundError (not sent: safe to retry; TurnMissedError when it would have
   * been written at or after `notAfter`), ResponseTimeoutError or ConnectionLostError (outcome unknown).
   */
  submit(pdu: SubmitSm, cls = 1, notAfter = Infinity): Promise<SubmitSmResp> {
    return this.request("submit_sm", pdu, cls, notAfter);
  }

  /**
   * Sends any request through the window; resolves with its response PDU.
   * @param cls the window class: 0 high, 1 normal, 2 bulk; @defaultValue 1
   * @param notAfter not written at or after this time (ms since the epoch): TurnMissedError.
   */
  request(command: string, fields: PduFields = {}, cls = 1, notAfter = Infinity): Promise<Pdu> {
    const connection = this.connection;
    if (!this.isBound || !connection)
      return Promise.reject(new NotBoundError(`cannot send ${command}: ${this.currentState}`));
    return connection.request(command, fields, true, cls, notAfter);
  }

  /** Stops reconnecting, lets in-flight requests finish (up to closeTimeoutMs), unbinds and closes. */
  async close(): Promise<void> {
    if (this.currentState === "closed" || this.stopping) return;
    this.stopping = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.enquireTimer);
    const connection = this.connection;
    if (connection?.isOpen) {
      // Not events.once(): it rejects on a socket "error" (ECONNRESET) before "close".
      const closed = new Promise<void>((resolve) => connection.socket.once("close", () => resolve()));
      if (this.currentState === "bound") {
        await Promise.race([connection.window.whenIdle(), delay(this.options.closeTimeoutMs ?? 5000)]);
        await connection.request("unbind", {}, false).catch(() => undefined);
      }
      connection.end("closed by us");
      await closed;
    }
    this.setState("closed", "closed by us");
  }

  private open(): void {
    this.setState("connecting", undefined);
    const { host, port, tls: tlsOptions } = this.options;
    const socket = tlsOptions
      ? tls.connect({
          ...tlsOptions,
          host,
          port,
          servername: tlsOptions.servername ?? (net.isIP(host) ? undefined : host),
          rejectUnauthorized: true,
        })
      : net.connect({ host, port });
    const connection: SmppConnection = new SmppConnection(socket, {
      windowSize: this.options.windowSize ?? 10,
      responseTimeoutMs: this.options.responseTimeoutMs ?? 10000,
      onRequest: (pdu) => this.handleRequest(connection, pdu),
      onClose: (reason) => this.handleClose(connection, reason),
    });
    this.connection = connection;
    const connectTimer = setTimeout(
      () => connection.destroy("connect timeout"),
      this.options.connectTimeoutMs ?? 10000,
    );
    socket.once("close", () => clearTimeout(connectTimer));
    socket.once(tlsOptions ? "secureConnect" : "connect", () => {
      clearTimeout(connectTimer);
      void this.bind(connection);
    });
  }

  private async bind(connection: SmppConnection): Promise<void> {
    const { bindType = "transceiver", systemId, password, systemType = "", addressRange = "" } = this.options;
    try {
      const response = await connection.request(
        `bind_${bindType}`,
        {
          system_id: systemId,
          password,
          system_type: systemType,
          interface_version: INTERFACE_VERSION_34,
          address_range: addressRange,
        },
        false,
      );
      if (response.command_status !== CommandStatus.ESME_ROK) throw new BindError(response.command_status);
    } catch (error) {
      this.lastError = error as Error;
      connection.end(`bind failed: ${(error as Error).message}`);
      return;
    }
    if (this.stopping || connection !== this.connection) return;
    this.attempt = 0;
    this.lastError = undefined;
    this.startEnquireLink(connection);
    this.setState("bound", undefined);
  }

  private startEnquireLink(connection: SmppConnection): void {
    const interval = this.options.enquireLinkIntervalMs ?? 30000;
    if (interval <= 0) return;
    clearInterval(this.enquireTimer);
    this.enquireTimer = setInterval(() => {
      // An unanswered enquire_link means a dead link even if TCP has not noticed yet.
      connection
        .request("enquire_link", {}, false)
        .catch((error: Error) => connection.destroy(`enquire_link failed: ${error.message}`));
    }, interval);
  }

  private handleRequest(connection: SmppConnection, pdu: Pdu): void {
    if (pdu.command === "deliver_sm") {
      void this.acknowledgeDeliverSm(connection, pdu as DeliverSm);
    } else if (pdu.command === "unbind") {
      connection.respond(pdu);
      connection.end("unbound by peer");
    } else if (isKnownCommand(`${pdu.command}_resp`)) {
      connection.respond(pdu, CommandStatus.ESME_RINVCMDID);
    }
  }

  private async acknowledgeDeliverSm(connection: SmppConnection, pdu: DeliverSm): Promise<void> {
    if (this.options.bindType === "transmitter") {
      connection.respond(pdu, CommandStatus.ESME_RINVBNDSTS);
      return this.options.onDeliverSmRefused?.(pdu);
    }
    let status: number;
    try {
      status = (await this.options.onDeliverSm?.(pdu)) ?? CommandStatus.ESME_ROK;
    } catch {
      status = CommandStatus.ESME_RX_T_APPN;
    }
    // If the connection went meanwhile the carrier redelivers: receipts are at least once.
    connection.respond(pdu, status);
  }

  private handleClose(connection: SmppConnection, reason: string): void {
    if (connection !== this.connection) return;
    this.connection = undefined;
    clearInterval(this.enquireTimer);
    if (this.stopping) return;
    if (this.options.reconnect === false) {
      this.lastError ??= new NotBoundError(reason);
      this.setState("closed", reason);
      return;
    }
    this.setState("disconnected", reason);
    const wait = computeBackoff(this.attempt++, this.options.backoff);
    this.reconnectTimer = setTimeout(() => this.open(), wait);
  }

  private setState(state: ClientState, reason: string | undefined): void {
    this.currentState = state;
    this.emit("state", state, reason);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
