import { PDU, addTLV, commands, types } from "smpp";
import { bodyLayoutProblem } from "./body-layout";
import { CommandStatus } from "./status";

/** Length of the PDU header: command_length, command_id, command_status, sequence_number (SMPP 3.4 §3.2). */
export const HEADER_LENGTH = 16;
/** Largest PDU we accept; the codec's own limit. @defaultValue 16384 */
export const MAX_PDU_LENGTH = PDU.maxLength;
/** sm_length is one octet and SMPP 3.4 §5.2.21 caps short_message at 254 octets; longer text goes in segments. */
export const MAX_SHORT_MESSAGE_LENGTH = 254;

/**
 * Our vendor TLV on a customer's submit_sm: the customer's own reference for the message
 * (`client_ref`, as on REST), an ASCII string (docs/decisions.md#client-ref-tlv). Tags
 * 0x1400-0x3FFF are reserved for SMSC vendors (SMPP 3.4 §5.3.2).
 */
export const CLIENT_REF_TLV_TAG = 0x1400;
// Registered as raw octets so both sides see it by name: the codec drops fields it does not
// know on encode, and on decode would file it under "5120". Octets, not its "string" type: that
// decodes as Node's 'ascii', which silently strips the high bit and would hide non-ASCII input.
addTLV("client_ref", { id: CLIENT_REF_TLV_TAG, type: types.tlv.buffer });

/**
 * A decoded PDU: header fields plus the command's fields and TLVs by their spec names.
 * Text fields stay raw: `short_message` and `message_payload` are Buffers, times are the wire strings.
 */
export interface Pdu {
  command: string;
  command_id: number;
  command_status: number;
  sequence_number: number;
  command_length: number;
  [field: string]: unknown;
}

/** Fields of a PDU to encode, by spec name; undefined values are left out. */
export type PduFields = Record<string, unknown>;

/** What the framer found in the bytes it was given. */
export type FramerEvent =
  | { type: "pdu"; pdu: Pdu }
  | {
      type: "malformed";
      reason: string;
      status: number;
      sequenceNumber: number | undefined;
      /** False: the framing held (a body that does not fit its layout); the PDUs after it are read. */
      fatal: boolean;
    };

/** True when `command` is a command the codec knows (`submit_sm`, `deliver_sm_resp`, …). */
export function isKnownCommand(command: string): boolean {
  return Object.hasOwn(commands, command);
}

/**
 * The codec's field filters guess: on decode they turn short_message into text with its
 * own tables (docs/smpp.md#the-smpp-package: IA5 decoded as GSM, `$` becomes `¤`) and times into Dates; on
 * encode they pick a data_coding and encode strings. Its message_payload filter also
 * assigns an undeclared variable, a ReferenceError wherever the code runs in strict mode.
 * We switch them off per PDU: fields go on and off the wire exactly as given.
 */
const noFilter = () => undefined;

/** Decodes one whole PDU (header included), fields raw. Throws on a body the codec cannot read. */
export function decodePdu(frame: Buffer): Pdu {
  const pdu = Object.create(PDU.prototype) as PDU;
  pdu._filter = noFilter;
  pdu.fromBuffer(frame);
  Reflect.deleteProperty(pdu, "_filter");
  return pdu as Pdu;
}

/**
 * Encodes a PDU with fields in wire form: `short_message` and `message_payload` as
 * Buffers (with an explicit `data_coding`), times as SMPP time strings.
 */
export function encodePdu(
  command: string,
  sequenceNumber: number,
  fields: PduFields = {},
  commandStatus: number = CommandStatus.ESME_ROK,
): Buffer {
  if (!isKnownCommand(command)) throw new TypeError(`unknown SMPP command ${command}`);
  const options: PduFields = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) options[key] = value;
  const message = options.short_message;
  if (message !== undefined) {
    if (!Buffer.isBuffer(message))
      throw new TypeError("short_message must be a Buffer (encode text with @sms/sms-encoding)");
    if (message.length > MAX_SHORT_MESSAGE_LENGTH)
      throw new RangeError(`short_message is ${message.length} octets; at most ${MAX_SHORT_MESSAGE_LENGTH}`);
    if (typeof options.data_coding !== "number")
      throw new TypeError("data_coding must be set when short_message is");
  }
  if (options.message_payload !== undefined && !Buffer.isBuffer(options.message_payload)) {
    throw new TypeError("message_payload must be a Buffer");
  }
  options.sequence_number = sequenceNumber;
  options.command_status = commandStatus;
  const pdu = new PDU(command, options);
  pdu._filter = noFilter;
  return pdu.toBuffer();
}

/**
 * Cuts a byte stream into PDUs by command_length. After the first malformed PDU it
 * reads nothing more: the caller answers generic_nack (when a sequence number was
 * readable) and destroys the session, as a stream that lost its framing cannot be trusted.
 */
export class PduFramer {
  /**
   * @param options.strictBodies Check each body against its SMPP 3.4 layout (body-layout.ts): a
   *   server sets it, so a customer's malformed submit_sm is refused, never read with fields made up.
   */
  constructor(private readonly options: { strictBodies?: boolean } = {}) {}

  /** Bytes of an incomplete PDU, in [start, end) of a buffer that grows by doubling. */
  private buffer: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;
  private failed = false;
  private copied = 0;

  /**
   * Bytes copied into the pending buffer so far: each received byte at most once or twice (a
   * PDU sent a byte at a time costs linear work, not a copy of everything pending per chunk).
   */
  get copiedBytes(): number {
    return this.copied;
  }

  /** Feeds received bytes; returns the PDUs completed by them, in order. */
  push(chunk: Buffer): FramerEvent[] {
    if (this.failed) return [];
    const events: FramerEvent[] = [];
    let input = chunk;
    if (this.end > this.start) {
      this.append(chunk);
      input = this.buffer.subarray(this.start, this.end);
    }
    // Whole PDUs are decoded where they lie; decodePdu keeps slices of its frame, so a frame
    // from our reused buffer is copied out first.
    const fromBuffer = input !== chunk;
    let offset = 0;
    while (input.length - offset >= 4) {
      const length = input.readUInt32BE(offset);
      const sequenceNumber =
        input.length - offset >= HEADER_LENGTH ? input.readUInt32BE(offset + 12) : undefined;
      if (length < HEADER_LENGTH || length > MAX_PDU_LENGTH) {
        events.push(
          this.fail(`command_length ${length} outside ${HEADER_LENGTH}..${MAX_PDU_LENGTH}`, sequenceNumber),
        );
        return events;
      }
      if (input.length - offset < length) break;
      const slice = input.subarray(offset, offset + length);
      const frame = fromBuffer ? Buffer.from(slice) : slice;
      offset += length;
      try {
        const pdu = decodePdu(frame);
        const problem = this.options.strictBodies ? bodyLayoutProblem(frame, pdu.command) : undefined;
        events.push(
          problem
            ? {
                type: "malformed",
                reason: problem,
                status: CommandStatus.ESME_RINVCMDLEN,
                sequenceNumber: pdu.sequence_number,
                fatal: false,
              }
            : { type: "pdu", pdu },
        );
      } catch (error) {
        events.push(this.fail(`undecodable body: ${(error as Error).message}`, sequenceNumber));
        return events;
      }
    }
    if (fromBuffer) {
      this.start += offset;
      if (this.start === this.end) this.start = this.end = 0;
    } else if (offset < chunk.length) {
      this.append(chunk.subarray(offset));
    }
    return events;
  }

  private append(bytes: Buffer): void {
    const pending = this.end - this.start;
    if (this.end + bytes.length > this.buffer.length) {
      const needed = pending + bytes.length;
      if (needed <= this.buffer.length / 2) {
        this.buffer.copy(this.buffer, 0, this.start, this.end);
      } else {
        const grown = Buffer.allocUnsafe(Math.max(needed * 2, 256));
        this.buffer.copy(grown, 0, this.start, this.end);
        this.buffer = grown;
      }
      this.copied += pending;
      this.start = 0;
      this.end = pending;
    }
    bytes.copy(this.buffer, this.end);
    this.end += bytes.length;
    this.copied += bytes.length;
  }

  private fail(reason: string, sequenceNumber: number | undefined): FramerEvent {
    this.failed = true;
    this.buffer = Buffer.alloc(0);
    this.start = this.end = 0;
    return { type: "malformed", reason, status: CommandStatus.ESME_RINVCMDLEN, sequenceNumber, fatal: true };
  }
}
