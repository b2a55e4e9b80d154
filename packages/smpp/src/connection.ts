import type net from "node:net";
import { encodePdu, PduFramer, type Pdu, type PduFields } from "./codec";
import { NotBoundError } from "./errors";
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
}

const RESPONSE_BIT = 0x80000000;

/**
 * One socket speaking SMPP: framing, sequence numbers, the window of our outstanding
 * requests, write backpressure, and the answers every session gives the same way.
 * Client and server sessions build their state machines on it.
 */
export class SmppConnection {
  readonly window: RequestWindow;
  private readonly framer = new PduFramer();
  private sequence = 0;
  private mustDrain = false;
  private drainWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private closeReason: string | undefined;
  private closed = false;

  constructor(
    readonly socket: net.Socket,
    private readonly options: SmppConnectionOptions,
  ) {
    this.window = new RequestWindow(options.windowSize, options.responseTimeoutMs);
    // Nagle holds small PDUs back; turning it off raised throughput by half at 20 ms latency (NOTES-smpp).
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
   * Waits for a window slot (unless `counted` is false) and for the socket to drain.
   * Rejects with NotBoundError (never written), ResponseTimeoutError or ConnectionLostError (outcome unknown).
   */
  async request(command: string, fields: PduFields = {}, counted = true): Promise<Pdu> {
    if (counted) await this.window.acquire();
    let frame: Buffer;
    let sequenceNumber: number;
    try {
      // Checked again after each wait: many requests may be woken by one 'drain'.
      while (this.mustDrain || this.closed) await this.whenWritable();
      sequenceNumber = this.nextSequence();
      frame = encodePdu(command, sequenceNumber, fields);
    } catch (error) {
      if (counted) this.window.release();
      throw error;
    }
    const response = this.window.track(sequenceNumber, command, counted);
    this.write(frame);
    return response;
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
    // socket.write() returning false means the kernel buffer is full: issue no new request until 'drain'.
    if (!this.socket.write(frame)) this.mustDrain = true;
  }

  private whenWritable(): Promise<void> {
    if (this.closed) return Promise.reject(new NotBoundError(this.closeReason ?? "connection closed"));
    if (!this.mustDrain) return Promise.resolve();
    return new Promise((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
  }

  private drained(): void {
    this.mustDrain = false;
    for (const waiter of this.drainWaiters.splice(0)) waiter.resolve();
  }

  private receive(chunk: Buffer): void {
    for (const event of this.framer.push(chunk)) {
      if (event.type === "malformed") {
        // The codec wedges after a bad PDU (NOTES-smpp) and a stream that lost its framing cannot be trusted.
        if (event.sequenceNumber !== undefined) this.nack(event.sequenceNumber, event.status);
        this.end(`malformed PDU: ${event.reason}`, 200);
        return;
      }
      this.dispatch(event.pdu);
      if (this.closed) return;
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
    for (const waiter of this.drainWaiters.splice(0)) waiter.reject(error);
    this.options.onClose(reason);
  }
}
