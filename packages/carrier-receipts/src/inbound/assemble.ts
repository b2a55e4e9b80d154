import { decodeInboundText, type InboundEncoding } from "@sms/sms-encoding";
import type { InboundFlag } from "./read-pdu";

export interface StoredPart {
  seq: number;
  dataCoding: number;
  payload: Buffer;
}

export interface AssembledText {
  text: string;
  encoding: InboundEncoding;
  dataCoding: number;
  flags: InboundFlag[];
}

/**
 * The text of a message from its parts in sequence order (one part for a whole message). The
 * octets are joined before decoding, so a character split between two parts (a UCS-2 surrogate
 * pair, a GSM-7 escape) comes out whole. Parts in different data codings are decoded one by one.
 */
export function assembleText(parts: readonly StoredPart[], inherited: readonly InboundFlag[]): AssembledText {
  const flags = new Set<InboundFlag>(inherited);
  const first = parts[0];
  const dataCoding = first?.dataCoding ?? 0;
  let text: string;
  let encoding: InboundEncoding;
  if (flags.has("malformed_udh")) {
    // Header and text cannot be told apart: every octet kept, in hex.
    text = Buffer.concat(parts.map((part) => part.payload)).toString("hex");
    encoding = "hex";
  } else if (parts.every((part) => part.dataCoding === dataCoding)) {
    ({ text, encoding } = decodeInboundText(Buffer.concat(parts.map((part) => part.payload)), dataCoding));
  } else {
    flags.add("mixed_data_coding");
    const decoded = parts.map((part) => decodeInboundText(part.payload, part.dataCoding));
    text = decoded.map((d) => d.text).join("");
    encoding = decoded.some((d) => d.encoding === "hex") ? "hex" : decoded[0]!.encoding;
  }
  if (encoding === "hex" && !flags.has("malformed_udh")) flags.add("undecodable");
  if (text === "") flags.add("empty");
  return { text, encoding, dataCoding, flags: [...flags] };
}
