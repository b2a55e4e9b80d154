import { EventEmitter } from "node:events";
import type net from "node:net";
import { isKnownCommand, type Pdu, type PduFields } from "./codec";
import { SmppConnection } from "./connection";
import { NotBoundError } from "./errors";
import type { BindType } from "./pdu-types";
import { CommandStatus } from "./status";

/** Bind states of SMPP 3.4 §2.2, from the SMSC side. */
export type ServerSessionState = "open" | "bound_tx" | "bound_rx" | "bound_trx" | "unbound" | "closed";

/** What a bind asked for. */
export interface BindRequest {
  bindType: BindType;
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
  addressRange: string;
}

/** How to answer a request: its command_status and, when ESME_ROK, the response fields. */
export interface ServerResponse {
  status?: number;
  fields?: PduFields;
}

/** Options of one SMSC-side session. */
export interface SmppServerSessionOptions {
  /** Decides a bind: ESME_ROK accepts, anything else (ESME_RINVPASWD, ESME_RBINDFAIL, …) refuses. */
  authenticate: (bind: BindRequest, session: SmppServerSession) => Promise<number> | number;
  /** Answers a request valid in the current state (submit_sm, query_sm, …). Without it they get ESME_RINVCMDID. */
  onRequest?: (pdu: Pdu, session: SmppServerSession) => Promise<ServerResponse> | ServerResponse;
  /** Our system_id in bind responses. @defaultValue "SMSC" */
  systemId?: string;
  /** Our deliver_sm outstanding at once. @defaultValue 10 */
  windowSize?: number;
  /** How long a deliver_sm waits for its response. @defaultValue 10000 */
  responseTimeoutMs?: number;
  /** Close the session after this long without a PDU from the peer; 0 turns it off. @defaultValue 120000 */
  inactivityTimeoutMs?: number;
  /**
   * The peer's requests we handle at once; at this many, we stop reading until one is
   * answered, so a peer with a larger window is slowed by TCP instead of queueing work
   * in our memory. @defaultValue 100
   */
  maxPendingRequests?: number;
}

interface ServerSessionEvents {
  state: [state: ServerSessionState, reason: string | undefined];
  /** No request of the peer is being handled any more. */
  idle: [];
}

const BOUND_STATES: Record<BindType, ServerSessionState> = {
  transmitter: "bound_tx",
  receiver: "bound_rx",
  transceiver: "bound_trx",
};
const TRANSMIT: ServerSessionState[] = ["bound_tx", "bound_trx"];
/** ESME-originated requests and the states they are valid in (SMPP 3.4 §2.3, table 2-1). */
const VALID_STATES: Record<string, ServerSessionState[]> = {
  submit_sm: TRANSMIT,
  submit_multi: TRANSMIT,
  data_sm: TRANSMIT,
  query_sm: TRANSMIT,
  cancel_sm: TRANSMIT,
  replace_sm: TRANSMIT,
  unbind: ["bound_tx", "bound_rx", "bound_trx"],
};

/**
 * The SMSC side of one SMPP v3.4 connection: bind state machine, state checks
 * (ESME_RINVBNDSTS), generic_nack for unknown commands, enquire_link answers,
 * inactivity timeout and a window for the deliver_sm we originate.
 */
export class SmppServerSession extends EventEmitter<ServerSessionEvents> {
  private currentState: ServerSessionState = "open";
  private readonly connection: SmppConnection;
  private readonly inactivityTimer: NodeJS.Timeout | undefined;
  private isBinding = false;
  private pendingRequests = 0;
  /** The bind this session holds, once bound. */
  bind: BindRequest | undefined;

  constructor(
    socket: net.Socket,
    private readonly options: SmppServerSessionOptions,
  ) {
    super();
    this.connection = new SmppConnection(socket, {
      windowSize: options.windowSize ?? 10,
      responseTimeoutMs: options.responseTimeoutMs ?? 10000,
      onRequest: (pdu) => void this.handleCounted(pdu),
      onClose: (reason) => this.handleClose(reason),
      onActivity: () => this.inactivityTimer?.refresh(),
      holdReadsWhileDraining: true,
      strictBodies: true,
    });
    const inactivityMs = options.inactivityTimeoutMs ?? 120000;
    if (inactivityMs > 0) this.inactivityTimer = setTimeout(() => this.onInactivity(), inactivityMs);
  }

  /**
   * A peer waiting for our answer is not idle: a bind whose password hash is slow on a busy host
   * outlasted a short timeout, and the session closed before its answer was written.
   */
  private onInactivity(): void {
    if (this.pendingRequests > 0) this.inactivityTimer?.refresh();
    else void this.close("inactivity timeout");
  }

  /** The bind state. */
  get state(): ServerSessionState {
    return this.currentState;
  }

  /** The peer's address, as the socket reports it. */
  get remoteAddress(): string | undefined {
    return this.connection.socket.remoteAddress;
  }

  /** True when bound as receiver or transceiver: deliver_sm may be sent. */
  get canReceive(): boolean {
    return this.currentState === "bound_rx" || this.currentState === "bound_trx";
  }

  /** Our deliver_sm written and not yet answered. */
  get outstanding(): number {
    return this.connection.window.outstanding;
  }

  /** Sends a deliver_sm through the window; resolves with the deliver_sm_resp whatever its status. */
  deliver(fields: PduFields): Promise<Pdu> {
    if (!this.canReceive)
      return Promise.reject(new NotBoundError(`cannot send deliver_sm in state ${this.currentState}`));
    return this.connection.request("deliver_sm", fields);
  }

  /**
   * Unbinds and closes. When bound: new requests get ESME_RINVBNDSTS at once, the ones
   * being handled are answered first (up to the response timeout: a response written
   * after the unbind would be lost, and the peer would send that message again), then
   * unbind, waiting up to the response timeout for unbind_resp.
   */
  async close(reason = "closed by server"): Promise<void> {
    if (this.currentState === "closed") return;
    // Not events.once(): it rejects when the socket emits "error" (ECONNRESET from a
    // peer that died) before "close", and nobody awaits it yet: an unhandled rejection.
    const closed = new Promise<void>((resolve) => this.connection.socket.once("close", () => resolve()));
    if (this.currentState.startsWith("bound")) {
      this.setState("unbound", reason);
      await this.whenNoPendingRequests(this.options.responseTimeoutMs ?? 10000);
      await this.connection.request("unbind", {}, false).catch(() => undefined);
    }
    this.connection.end(reason);
    await closed;
  }

  /** Closes the socket at once. */
  destroy(reason: string): void {
    this.connection.destroy(reason);
  }

  /** Requests of the peer being handled now. */
  get pending(): number {
    return this.pendingRequests;
  }

  /** True while reading is paused (window full or writes blocked). */
  get isReadingHeld(): boolean {
    return this.connection.isReadingHeld;
  }

  private whenNoPendingRequests(timeoutMs: number): Promise<void> {
    if (this.pendingRequests === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.off("idle", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.on("idle", done);
    });
  }

  private async handleCounted(pdu: Pdu): Promise<void> {
    const max = this.options.maxPendingRequests ?? 100;
    if (++this.pendingRequests >= max) this.connection.holdReading("window", true);
    try {
      await this.handleRequest(pdu);
    } finally {
      if (--this.pendingRequests < max) this.connection.holdReading("window", false);
      if (this.pendingRequests === 0) this.emit("idle");
    }
  }

  private async handleRequest(pdu: Pdu): Promise<void> {
    const connection = this.connection;
    if (pdu.command.startsWith("bind_")) return this.handleBind(pdu);
    const validIn = VALID_STATES[pdu.command];
    if (!validIn) {
      // A known command the ESME may not originate (deliver_sm, outbind, …).
      if (isKnownCommand(`${pdu.command}_resp`)) connection.respond(pdu, CommandStatus.ESME_RINVCMDID);
      else connection.nack(pdu.sequence_number, CommandStatus.ESME_RINVCMDID);
      return;
    }
    if (!validIn.includes(this.currentState)) return connection.respond(pdu, CommandStatus.ESME_RINVBNDSTS);
    if (pdu.command === "unbind") {
      this.setState("unbound", "unbound by peer");
      connection.respond(pdu);
      connection.end("unbound by peer");
      return;
    }
    if (!this.options.onRequest) return connection.respond(pdu, CommandStatus.ESME_RINVCMDID);
    let response: ServerResponse;
    try {
      response = await this.options.onRequest(pdu, this);
    } catch {
      response = { status: CommandStatus.ESME_RSYSERR };
    }
    connection.respond(pdu, response.status ?? CommandStatus.ESME_ROK, response.fields);
  }

  private async handleBind(pdu: Pdu): Promise<void> {
    const bindType = pdu.command.slice("bind_".length) as BindType;
    if (this.currentState !== "open" || this.isBinding)
      return this.connection.respond(pdu, CommandStatus.ESME_RALYBND);
    const bind: BindRequest = {
      bindType,
      systemId: String(pdu.system_id ?? ""),
      password: String(pdu.password ?? ""),
      systemType: String(pdu.system_type ?? ""),
      interfaceVersion: Number(pdu.interface_version ?? 0),
      addressRange: String(pdu.address_range ?? ""),
    };
    let status: number;
    this.isBinding = true;
    try {
      status = await this.options.authenticate(bind, this);
    } catch {
      status = CommandStatus.ESME_RBINDFAIL;
    } finally {
      this.isBinding = false;
    }
    if (this.currentState !== "open") return;
    if (status !== CommandStatus.ESME_ROK) return this.connection.respond(pdu, status);
    this.bind = bind;
    this.connection.respond(pdu, CommandStatus.ESME_ROK, { system_id: this.options.systemId ?? "SMSC" });
    this.setState(BOUND_STATES[bindType], undefined);
  }

  private handleClose(reason: string): void {
    clearTimeout(this.inactivityTimer);
    this.setState("closed", reason);
  }

  private setState(state: ServerSessionState, reason: string | undefined): void {
    if (this.currentState === state) return;
    this.currentState = state;
    this.emit("state", state, reason);
  }
}
