import net from "node:net";
import { waitFor } from "@sms/testing";
import { encodePdu, PduFramer, type Pdu, type PduFields } from "../src/codec";

/**
 * A bare SMPP peer for tests: writes exactly the PDUs (or bytes) it is told to and
 * records what it receives, with none of the session layer's own answers.
 */
export class RawPeer {
  readonly received: Pdu[] = [];
  readonly closed: Promise<void>;
  isClosed = false;
  private sequence = 1000;
  private readonly framer = new PduFramer();

  private constructor(readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      for (const event of this.framer.push(chunk)) if (event.type === "pdu") this.received.push(event.pdu);
    });
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        this.isClosed = true;
        resolve();
      }),
    );
  }

  /** Connects to 127.0.0.1:port, from `localAddress` (another loopback address is another client). */
  static connect(port: number, localAddress?: string): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: "127.0.0.1", port, ...(localAddress ? { localAddress } : {}) }, () =>
        resolve(new RawPeer(socket)),
      );
      socket.once("error", reject);
    });
  }

  /** Writes one PDU; returns its sequence number. */
  send(command: string, fields: PduFields = {}, sequenceNumber = ++this.sequence, status = 0): number {
    this.socket.write(encodePdu(command, sequenceNumber, fields, status));
    return sequenceNumber;
  }

  /** Sends a request and waits for the PDU answering its sequence number. */
  async request(command: string, fields: PduFields = {}): Promise<Pdu> {
    const sequenceNumber = this.send(command, fields);
    return this.next(
      (pdu) => pdu.sequence_number === sequenceNumber && (pdu.command_id & 0x80000000) !== 0,
      `answer to ${command}`,
    );
  }

  /** Waits for (and takes) the first received PDU matching `match`. */
  async next(match: (pdu: Pdu) => boolean, what = "a PDU", timeoutMs = 5000): Promise<Pdu> {
    return waitFor(
      () => {
        const index = this.received.findIndex(match);
        return index >= 0 ? this.received.splice(index, 1)[0] : undefined;
      },
      { timeoutMs, what, intervalMs: 5 },
    );
  }

  close(): void {
    this.socket.destroy();
  }
}
