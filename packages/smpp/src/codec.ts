import { PDU, commands } from "smpp";
import { CommandStatus } from "./status";

/** Length of the PDU header: command_length, command_id, command_status, sequence_number (SMPP 3.4 §3.2). */
export const HEADER_LENGTH = 16;
/** Largest PDU we accept; the codec's own limit. @defaultValue 16384 */
export const MAX_PDU_LENGTH = PDU.maxLength;
/** sm_length is one octet and SMPP 3.4 §5.2.21 caps short_message at 254 octets; longer text goes in segments. */
export const MAX_SHORT_MESSAGE_LENGTH = 254;

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
  | { type: "malformed"; reason: string; status: number; sequenceNumber: number | undefined };

/** True when `command` is a command the codec knows (`submit_sm`, `deliver_sm_resp`, …). */
export function isKnownCommand(command: string): boolean {
  return Object.hasOwn(commands, command);
}

/**
 * The codec's field filters guess: on decode they turn short_message into text with its
 * own tables (NOTES-smpp: IA5 decoded as GSM, `$` becomes `¤`) and times into Dates; on
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
  private pending: Buffer = Buffer.alloc(0);
  private failed = false;

  /** Feeds received bytes; returns the PDUs completed by them, in order. */
  push(chunk: Buffer): FramerEvent[] {
    if (this.failed) return [];
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const events: FramerEvent[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readUInt32BE(0);
      const sequenceNumber = this.pending.length >= HEADER_LENGTH ? this.pending.readUInt32BE(12) : undefined;
      if (length < HEADER_LENGTH || length > MAX_PDU_LENGTH) {
        events.push(
          this.fail(`command_length ${length} outside ${HEADER_LENGTH}..${MAX_PDU_LENGTH}`, sequenceNumber),
        );
        break;
      }
      if (this.pending.length < length) break;
      const frame = this.pending.subarray(0, length);
      this.pending = this.pending.subarray(length);
      try {
        events.push({ type: "pdu", pdu: decodePdu(frame) });
      } catch (error) {
        events.push(this.fail(`undecodable body: ${(error as Error).message}`, sequenceNumber));
        break;
      }
    }
    return events;
  }

  private fail(reason: string, sequenceNumber: number | undefined): FramerEvent {
    this.failed = true;
    this.pending = Buffer.alloc(0);
    return { type: "malformed", reason, status: CommandStatus.ESME_RINVCMDLEN, sequenceNumber };
  }
}
