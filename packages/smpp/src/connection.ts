import type net from "node:net";
import { encodePdu, PduFramer, type FramerEvent, type Pdu, type PduFields } from "./codec";
import { NotBoundError, TurnMissedError } from "./errors";
import { Fifo } from "./fifo";
import { CommandStatus } from "./status";
import { RequestWindow } from "./window";

/** Settings of one SMPP connection, either side. */
export interface SmppConnectionOptions {
  /** Largest number of our requests outstanding at once. */
  windowSize: number;
  /** How long one of our requests waits for its response. */
  responseTimeoutMs: number;
  /** Each request PDU from the peer, except enquire_link (answered here) and unknown commands (generic_nack here). */
  onRequest: (pdu: Pdu) => void;
  /** Once, when the socket is gone, with why. */
  onClose: (reason: string) => void;
  /** Each PDU received, for inactivity timers. */
  onActivity?: () => void;
  /**
   * Stop reading while the socket waits for 'drain'. A server sets it: a peer that sends
   * requests but stops reading our responses would otherwise grow our write buffer
   * without bound; paused, TCP pushes back on the peer instead. A client leaves it off,
   * as it must keep reading responses to free its window. @defaultValue false
   */
  holdReadsWhileDraining?: boolean;
  /**
   * Check every body against its SMPP 3.4 layout: one that does not fit is answered generic_nack
   * ESME_RINVCMDLEN and the session goes on (its framing held). A server sets it. @defaultValue false
   */
  strictBodies?: boolean;
}

const RESPONSE_BIT = 0x80000000;

/**
 * One socket speaking SMPP: framing, sequence numbers, the window of our outstanding
 * requests, write backpressure, and the answers every session gives the same way.
 * Client and server sessions build their state machines on it.
 */
export class SmppConnection {
  readonly window: RequestWindow;
  private readonly framer: PduFramer;
  private sequence = 0;
  private mustDrain = false;
  private corked = false;
  /** Requests waiting for 'drain', each able to send itself. */
  private readonly blocked = new Fifo<{
    send: () => Promise<Pdu>;
    resolve: (response: Promise<Pdu>) => void;
    reject: (error: Error) => void;
  }>();
  private closeReason: string | undefined;
  private closed = false;
  /** Why reading is paused; it resumes once no reason is left. */
  private readonly readHolds = new Set<string>();
  /** PDUs read but not yet handled: one chunk can carry many, and a hold stops them too. */
  private readonly unhandled = new Fifo<FramerEvent>();

  constructor(
    readonly socket: net.Socket,
    private readonly options: SmppConnectionOptions,
  ) {
    this.window = new RequestWindow(options.windowSize, options.responseTimeoutMs);
    this.framer = new PduFramer({ strictBodies: options.strictBodies });
    // Nagle holds small PDUs back; turning it off raised throughput by half at 20 ms latency (docs/smpp.md#the-smpp-package).
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("drain", () => this.drained());
    socket.on("error", (error) => (this.closeReason ??= `socket error: ${error.message}`));
    socket.on("close", () => this.handleClose());
  }

  /** False once the socket closed. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /**
   * Sends a request and resolves with its response PDU, whatever its command_status.
   * Waits for a window slot (unless `counted` is false) and, while the socket needs
   * draining, in a queue that 'drain' empties in order. `cls` is the window class (see RequestWindow).
   * With `notAfter` (ms since the epoch) a request whose turn to be written comes at or after it
   * is not written and rejects with TurnMissedError.
   * Rejects with NotBoundError (never written), ResponseTimeoutError or ConnectionLostError (outcome unknown).
   */
  async request(
    command: string,
    fields: PduFields = {},
    counted = true,
    cls = 1,
    notAfter = Infinity,
  ): Promise<Pdu> {
    if (counted) await this.window.acquire(cls);
    if (this.closed || this.socket.writableEnded || this.socket.destroyed) {
      if (counted) this.window.release();
      throw new NotBoundError(this.closeReason ?? "connection closed");
    }
    const send = () => {
      if (Date.now() < notAfter) return this.send(command, fields, counted);
      if (counted) this.window.release();
      return Promise.reject(new TurnMissedError(`${command} not written: its turn ended`));
    };
    if (!this.mustDrain && this.blocked.size === 0) return send();
    return new Promise((resolve, reject) => this.blocked.push({ send, resolve, reject }));
  }

  /** Pauses reading PDUs while any `reason` holds it (a full window, a blocked write), resumes after. */
  holdReading(reason: string, hold: boolean): void {
    const before = this.readHolds.size;
    if (hold) this.readHolds.add(reason);
    else this.readHolds.delete(reason);
    if (before === 0 && this.readHolds.size > 0) this.socket.pause();
    else if (before > 0 && this.readHolds.size === 0 && !this.closed) {
      this.handleUnhandled();
      if (this.readHolds.size === 0) this.socket.resume();
    }
  }

  /** True while reading is paused. */
  get isReadingHeld(): boolean {
    return this.readHolds.size > 0;
  }

  /** Answers `request` with its `_resp` carrying `status` and, when OK, `fields`. */
  respond(request: Pdu, status: number = CommandStatus.ESME_ROK, fields: PduFields = {}): void {
    this.write(encodePdu(`${request.command}_resp`, request.sequence_number, fields, status));
  }

  /** Sends generic_nack for a PDU we could not handle (SMPP 3.4 §4.3). */
  nack(sequenceNumber: number, status: number): void {
    this.write(encodePdu("generic_nack", sequenceNumber, {}, status));
  }

  /** Closes the socket now; in-flight requests reject with ConnectionLostError. */
  destroy(reason: string): void {
    this.closeReason ??= reason;
    this.socket.destroy();
  }

  /** Flushes what was written and closes; destroys after `timeoutMs` if the peer does not close its side. */
  end(reason: string, timeoutMs = 2000): void {
    this.closeReason ??= reason;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), timeoutMs).unref();
  }

  private nextSequence(): number {
    // sequence_number runs 0x00000001..0x7FFFFFFF (SMPP 3.4 §3.2).
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  private write(frame: Buffer): void {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    // PDUs written in one tick leave in one writev (a syscall per PDU was the largest cost at 10k+/s).
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    // socket.write() returning false means the kernel buffer is full: issue no new request until 'drain'.
    if (!this.socket.write(frame) && !this.mustDrain) {
      this.mustDrain = true;
      if (this.options.holdReadsWhileDraining) this.holdReading("drain", true);
    }
  }

  /** Encodes, tracks and writes a request now. */
  private send(command: string, fields: PduFields, counted: boolean): Promise<Pdu> {
    let frame: Buffer;
    const sequenceNumber = this.nextSequence();
    try {
      frame = encodePdu(command, sequenceNumber, fields);
    } catch (error) {
      if (counted) this.window.release();
      return Promise.reject(error);
    }
    const response = this.window.track(sequenceNumber, command, counted);
    this.write(frame);
    return response;
  }

  /** Writes blocked requests, oldest first, until the socket pushes back again. */
  private drained(): void {
    this.mustDrain = false;
    if (this.options.holdReadsWhileDraining) this.holdReading("drain", false);
    while (!this.mustDrain && !this.closed) {
      const next = this.blocked.shift();
      if (!next) break;
      next.resolve(next.send());
    }
  }

  private receive(chunk: Buffer): void {
    for (const event of this.framer.push(chunk)) this.unhandled.push(event);
    this.handleUnhandled();
  }

  private handleUnhandled(): void {
    while (this.readHolds.size === 0 && !this.closed) {
      const event = this.unhandled.shift();
      if (!event) return;
      if (event.type === "malformed" && !event.fatal) {
        // The framing held: refuse this PDU only (never read with fields made up) and go on.
        if (event.sequenceNumber !== undefined) this.nack(event.sequenceNumber, event.status);
        continue;
      }
      if (event.type === "malformed") {
        // A stream with one unreadable PDU has lost its framing or its peer is broken: nack what we can and close
        // (the smpp package's own Session would instead wedge silently: docs/smpp.md#the-smpp-package).
        if (event.sequenceNumber !== undefined) this.nack(event.sequenceNumber, event.status);
        this.end(`malformed PDU: ${event.reason}`, 200);
        this.unhandled.drain();
        return;
      }
      this.dispatch(event.pdu);
    }
  }

  private dispatch(pdu: Pdu): void {
    this.options.onActivity?.();
    if (pdu.command === "unknown") {
      this.nack(pdu.sequence_number, CommandStatus.ESME_RINVCMDID);
    } else if ((pdu.command_id & RESPONSE_BIT) !== 0) {
      this.window.settle(pdu);
    } else if (pdu.command === "enquire_link") {
      this.respond(pdu);
    } else {
      this.options.onRequest(pdu);
    }
  }

  private handleClose(): void {
    if (this.closed) return;
    this.closed = true;
    const reason = this.closeReason ?? "closed by peer";
    this.window.close(reason);
    const error = new NotBoundError(reason);
    for (const waiter of this.blocked.drain()) waiter.reject(error);
    this.options.onClose(reason);
  }
}
