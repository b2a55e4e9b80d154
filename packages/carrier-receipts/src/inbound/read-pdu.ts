import { EsmClass, type DeliverSm } from "@sms/smpp";

/** Where a part belongs: carriers mark it in a UDH (8- or 16-bit reference) or with the SAR TLVs. */
export interface PartPosition {
  reference: number;
  total: number;
  seq: number;
}

/** What went wrong with an inbound message, kept on its row (inbound_messages.flags). */
export type InboundFlag =
  "malformed_udh" | "invalid_part_number" | "undecodable" | "incomplete" | "empty" | "mixed_data_coding";

/** One inbound deliver_sm, read: a whole message, or one part of a concatenated one. */
export interface InboundPiece {
  /** As the carrier gave it: a number in E.164 when it is one, an alphanumeric sender as is. */
  from: string;
  to: string;
  dataCoding: number;
  /** The text's octets, without the UDH. */
  payload: Buffer;
  part: PartPosition | null;
  flags: InboundFlag[];
  /** The carrier's id for a whole message (HTTP intake only): a retry with it is not stored twice. */
  carrierMessageId?: string;
}

const IEI_CONCAT_8BIT = 0x00;
const IEI_CONCAT_16BIT = 0x08;
const TON_INTERNATIONAL = 1;

/** Reads a deliver_sm that is not a receipt. Never throws: what cannot be read is flagged. */
export function readInboundPdu(pdu: DeliverSm): InboundPiece {
  const payloadTlv = Buffer.isBuffer(pdu.message_payload) ? pdu.message_payload : undefined;
  const body = payloadTlv && payloadTlv.length > 0 ? payloadTlv : (pdu.short_message ?? Buffer.alloc(0));
  const base = {
    from: addressOf(pdu.source_addr, pdu.source_addr_ton),
    to: addressOf(pdu.destination_addr, pdu.dest_addr_ton),
    dataCoding: pdu.data_coding,
  };
  if ((pdu.esm_class & EsmClass.UDHI) !== 0) {
    const udh = readUdh(body);
    // The header runs past the end: no telling where the text starts. Kept whole (stored as hex).
    if (udh === null) return { ...base, payload: body, part: null, flags: ["malformed_udh"] };
    return piece(base, body.subarray(udh.headerLength), udh.concat);
  }
  return piece(base, body, sarPosition(pdu));
}

type Concat = PartPosition | "invalid" | null;

function piece(
  base: Omit<InboundPiece, "payload" | "part" | "flags">,
  payload: Buffer,
  concat: Concat,
): InboundPiece {
  // A part number of 0 or above the total cannot be placed: kept as a message of its own.
  if (concat === "invalid") return { ...base, payload, part: null, flags: ["invalid_part_number"] };
  if (concat === null || concat.total === 1) return { ...base, payload, part: null, flags: [] };
  return { ...base, payload, part: concat, flags: [] };
}

/** The UDH's length and its concatenation element (TS 23.040 §9.2.3.24); null when the header is malformed. */
function readUdh(body: Buffer): { headerLength: number; concat: Concat } | null {
  if (body.length < 1) return null;
  const headerLength = body[0]! + 1;
  if (headerLength > body.length) return null;
  let concat: Concat = null;
  let offset = 1;
  while (offset < headerLength) {
    if (offset + 2 > headerLength) return null;
    const iei = body[offset]!;
    const length = body[offset + 1]!;
    const start = offset + 2;
    if (start + length > headerLength) return null;
    // A repeated element: the last one counts (TS 23.040 §9.2.3.24).
    if (iei === IEI_CONCAT_8BIT && length === 3)
      concat = position(body[start]!, body[start + 1]!, body[start + 2]!);
    else if (iei === IEI_CONCAT_16BIT && length === 4)
      concat = position(body.readUInt16BE(start), body[start + 2]!, body[start + 3]!);
    else if (iei === IEI_CONCAT_8BIT || iei === IEI_CONCAT_16BIT) return null;
    offset = start + length;
  }
  return { headerLength, concat };
}

function sarPosition(pdu: DeliverSm): Concat {
  const { sar_msg_ref_num: reference, sar_total_segments: total, sar_segment_seqnum: seq } = pdu;
  if (typeof reference !== "number" || typeof total !== "number" || typeof seq !== "number") return null;
  return position(reference, total, seq);
}

function position(reference: number, total: number, seq: number): Concat {
  if (total < 1 || seq < 1 || seq > total) return "invalid";
  return { reference, total, seq };
}

/**
 * A number in E.164 when it is one (international TON, or more digits than a short code has), so
 * it matches inbound_numbers whichever way the carrier wrote it; anything else as given.
 */
export function addressOf(address: string, ton: unknown): string {
  const digits = address.startsWith("+") ? address.slice(1) : address;
  if (!/^[0-9]{1,15}$/.test(digits)) return address;
  if (address.startsWith("+") || ton === TON_INTERNATIONAL || digits.length > 8) return `+${digits}`;
  return digits;
}
