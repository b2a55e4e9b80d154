/**
 * Our declaration of the part of the `smpp` package (0.5.1) we use: its PDU codec.
 * The package ships no types and there is no @types/smpp. We never use its Session
 * or Server (see docs/smpp.md#the-smpp-package: no window, no timeouts, ignores backpressure).
 */
declare module "smpp" {
  /** A decoded or to-be-encoded PDU: header fields plus the command's own fields and TLVs by name. */
  export class PDU {
    /** Builds a PDU to send; unknown keys are ignored, missing fields take the codec's defaults. */
    constructor(command: string, options?: Record<string, unknown>);
    command: string;
    command_length: number;
    command_id: number;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    /** Reads a whole PDU (header included) into this object; runs `_filter("decode")` at the end. */
    fromBuffer(buffer: Buffer): void;
    /** Encodes; throws when a field does not fit (a short_message over 255 bytes). */
    toBuffer(): Buffer;
    isResponse(): boolean;
    /** Post-processing of decoded fields (text decoding, time parsing); we replace it to keep raw bytes. */
    _filter(direction: "encode" | "decode"): void;
    /** Largest command_length the codec accepts. @defaultValue 16384 */
    static maxLength: number;
  }

  interface FieldType {
    read(buffer: Buffer, offset: number, length?: number): unknown;
    size(value: unknown): number;
  }

  /** Field codecs; `types.tlv` are those of TLV values (read with the TLV's length). */
  export const types: {
    tlv: Record<"int8" | "int16" | "int32" | "cstring" | "string" | "buffer", FieldType>;
  };
  /** Registers a TLV (vendor-specific ones included) by name, so PDUs encode and decode it by that name. */
  export function addTLV(tag: string, options: { id: number; type: FieldType; multiple?: boolean }): void;

  /** Command definitions by name: id and mandatory parameters in wire order. */
  export const commands: Record<string, { id: number; params?: Record<string, { type: FieldType }> }>;
  /** The same definitions keyed by command_id. */
  export const commandsById: Record<number, { command: string } | undefined>;
}
