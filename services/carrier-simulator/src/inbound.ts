import { z } from "@sms/config";
import { CommandStatus, EsmClass, type PduFields, type SmppServerSession } from "@sms/smpp";
import { GSM7_BASIC, GSM7_EXTENSION } from "./text-decoding";

/** POST /inbound: a message from a handset to the platform, as a carrier delivers it (README). */
export const InboundRequest = z
  .strictObject({
    from: z.string().min(1).max(20),
    to: z.string().min(1).max(20),
    /** The text, encoded per `encoding`; or `hex`: the exact octets (any data_coding, bad input). */
    text: z.string().max(10_000).optional(),
    hex: z
      .string()
      .regex(/^([0-9a-fA-F]{2})*$/)
      .max(20_000)
      .optional(),
    encoding: z.enum(["gsm7", "ucs2", "latin1", "ia5"]).optional(),
    /** Overrides the data_coding the encoding implies (a coding the platform may not know). */
    data_coding: z.number().int().min(0).max(255).optional(),
    /** Octets of text per part; longer texts are split. Default: 153 for GSM-7, 134 otherwise. */
    part_octets: z.number().int().min(1).max(250).optional(),
    /** How parts are numbered: 8- or 16-bit reference UDH, or the SAR TLVs. */
    concat: z.enum(["udh8", "udh16", "sar"]).default("udh8"),
    reference: z.number().int().min(0).max(65535).optional(),
    /** The order parts are sent in (part numbers from 1), e.g. [3, 1, 2]; parts may repeat (a redelivery). */
    order: z.array(z.number().int().min(1).max(255)).max(300).optional(),
    /** Sent as is instead of the computed UDH, on every part (a malformed header). */
    udh_hex: z
      .string()
      .regex(/^([0-9a-fA-F]{2})*$/)
      .max(512)
      .optional(),
    /** The system_id whose receiver/transceiver binds get it; default any bound receiver. */
    system_id: z.string().max(16).optional(),
  })
  .refine((body) => (body.text === undefined) !== (body.hex === undefined), {
    message: "give exactly one of text and hex",
  });
export type InboundRequest = z.infer<typeof InboundRequest>;

/** POST /inbound/batch: many inbound messages in one call (a load test's injection). */
export const InboundBatchRequest = z.strictObject({
  messages: z.array(InboundRequest).min(1).max(20_000),
});
export type InboundBatchRequest = z.infer<typeof InboundBatchRequest>;

const DATA_CODING = { gsm7: 0x00, ia5: 0x01, latin1: 0x03, ucs2: 0x08 } as const;
const GSM7_SEPTET = new Map([...GSM7_BASIC].map((char, septet) => [char, [septet]]));
for (const [septet, char] of Object.entries(GSM7_EXTENSION)) GSM7_SEPTET.set(char, [0x1b, Number(septet)]);

/** The deliver_sm fields of each part, in sending order. Throws a RangeError on text the encoding cannot carry. */
export function buildInboundParts(request: InboundRequest): PduFields[] {
  const encoding = request.encoding ?? (request.text === undefined || isGsm7(request.text) ? "gsm7" : "ucs2");
  const payload =
    request.hex !== undefined ? Buffer.from(request.hex, "hex") : encode(request.text!, encoding);
  const dataCoding = request.data_coding ?? DATA_CODING[encoding];
  const size = request.part_octets ?? (encoding === "gsm7" ? 153 : 134);
  const chunks = splitOctets(payload, size, encoding);
  const total = chunks.length;
  if (total > 255) throw new RangeError(`${total} parts: at most 255`);
  const reference =
    request.reference ?? Math.floor(Math.random() * (request.concat === "udh16" ? 65536 : 256));
  const order = request.order ?? chunks.map((_, i) => i + 1);
  return order.map((seq) => {
    const chunk = chunks[seq - 1];
    if (!chunk) throw new RangeError(`order names part ${seq}; there are ${total}`);
    const fields: PduFields = {
      source_addr_ton: /^\+?[0-9]+$/.test(request.from) ? 1 : 5,
      source_addr_npi: /^\+?[0-9]+$/.test(request.from) ? 1 : 0,
      source_addr: request.from.replace(/^\+/, ""),
      dest_addr_ton: request.to.startsWith("+") ? 1 : 0,
      dest_addr_npi: 1,
      destination_addr: request.to.replace(/^\+/, ""),
      esm_class: 0,
      data_coding: dataCoding,
      short_message: chunk,
    };
    const udh =
      request.udh_hex !== undefined
        ? Buffer.from(request.udh_hex, "hex")
        : total === 1 || request.concat === "sar"
          ? null
          : request.concat === "udh16"
            ? Buffer.from([0x06, 0x08, 0x04, reference >> 8, reference & 0xff, total, seq])
            : Buffer.from([0x05, 0x00, 0x03, reference & 0xff, total, seq]);
    if (udh) {
      fields.esm_class = EsmClass.UDHI;
      fields.short_message = Buffer.concat([udh, chunk]);
    } else if (total > 1) {
      Object.assign(fields, {
        sar_msg_ref_num: reference,
        sar_total_segments: total,
        sar_segment_seqnum: seq,
      });
    }
    return fields;
  });
}

/** Sends the parts to receiver/transceiver binds (round robin, so parts travel on different binds). */
export async function deliverInbound(
  sessions: Iterable<SmppServerSession>,
  request: InboundRequest,
  parts: PduFields[],
): Promise<{ status: number; body: unknown }> {
  const binds = [...sessions].filter(
    (session) => session.canReceive && (!request.system_id || session.bind?.systemId === request.system_id),
  );
  if (binds.length === 0)
    return { status: 409, body: { error: "no receiver or transceiver bind to deliver to" } };
  const answers: Array<{ command_status: number }> = [];
  for (const [i, fields] of parts.entries()) {
    const response = await binds[i % binds.length]!.deliver(fields).catch(() => ({ command_status: -1 }));
    answers.push({ command_status: response.command_status });
  }
  const acknowledged = answers.filter((a) => a.command_status === CommandStatus.ESME_ROK).length;
  return { status: 200, body: { parts: answers.length, acknowledged, answers } };
}

/**
 * Sends every part of every message at once: the binds' windows pace them (CARRIER_SIM_WINDOW_SIZE
 * each), so the platform sees the load a busy carrier gives, not one deliver_sm per round trip.
 */
export async function deliverInboundBatch(
  sessions: Iterable<SmppServerSession>,
  messages: InboundRequest[],
): Promise<{ status: number; body: unknown }> {
  const binds = [...sessions].filter((session) => session.canReceive);
  if (binds.length === 0)
    return { status: 409, body: { error: "no receiver or transceiver bind to deliver to" } };
  const parts = messages.flatMap(buildInboundParts);
  const statuses = await Promise.all(
    parts.map((fields, i) =>
      binds[i % binds.length]!.deliver(fields).then(
        (response) => response.command_status,
        () => -1,
      ),
    ),
  );
  const acknowledged = statuses.filter((status) => status === CommandStatus.ESME_ROK).length;
  return {
    status: 200,
    body: {
      messages: messages.length,
      parts: parts.length,
      acknowledged,
      refused: parts.length - acknowledged,
    },
  };
}

function isGsm7(text: string): boolean {
  return [...text].every((char) => GSM7_SEPTET.has(char));
}

function encode(text: string, encoding: keyof typeof DATA_CODING): Buffer {
  if (encoding === "ucs2") return Buffer.from(text, "utf16le").swap16();
  if (encoding === "gsm7") {
    const septets = [...text].flatMap((char) => {
      const found = GSM7_SEPTET.get(char);
      if (!found) throw new RangeError(`${JSON.stringify(char)} is not in the GSM-7 alphabet`);
      return found;
    });
    return Buffer.from(septets);
  }
  return Buffer.from(text, "latin1");
}

/** Cuts the octets into parts of at most `size`, never inside a UCS-2 unit or after a GSM-7 escape. */
function splitOctets(payload: Buffer, size: number, encoding: string): Buffer[] {
  if (payload.length <= size) return [payload];
  const chunks: Buffer[] = [];
  let start = 0;
  while (start < payload.length) {
    let end = Math.min(payload.length, start + size);
    if (encoding === "ucs2" && (end - start) % 2 === 1 && end < payload.length) end -= 1;
    if (encoding === "gsm7" && end < payload.length && payload[end - 1] === 0x1b) end -= 1;
    chunks.push(payload.subarray(start, end));
    start = end;
  }
  return chunks;
}
