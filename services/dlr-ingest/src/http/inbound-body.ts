import { ApiError } from "@sms/errors";
import { z } from "@sms/config";
import { addressOf, type InboundPiece } from "@sms/carrier-receipts";
import { parseBody } from "./parse-body";
import { encodeGsm7, encodeUcs2, isGsm7 } from "@sms/sms-encoding";

/**
 * The JSON body of POST /v1/carriers/{id}/inbound (docs/smpp.md#inbound-over-http); unknown
 * fields are ignored (carriers add their own).
 */
export const InboundBody = z
  .object({
    /** The carrier's id for the message: the same id posted again is a retry, stored once. */
    message_id: z.string().trim().min(1).max(64),
    from: z.string().trim().min(1).max(21),
    to: z.string().trim().min(1).max(21),
    text: z.string().max(1600).optional(),
    /** The octets as the handset sent them, decoded per data_coding as a deliver_sm's would be. */
    hex: z
      .string()
      .regex(/^([0-9a-fA-F]{2})*$/, "pairs of hex digits")
      .max(2 * 1600)
      .optional(),
    data_coding: z.number().int().min(0).max(255).optional(),
    /** One part of a concatenated message; parts are reassembled as over SMPP. */
    part: z
      .object({
        reference: z.number().int().min(0).max(65535),
        total: z.number().int().min(1).max(255),
        seq: z.number().int().min(1).max(255),
      })
      .refine((part) => part.seq <= part.total, { message: "seq must be at most total", path: ["seq"] })
      .optional(),
  })
  .refine((body) => (body.text === undefined) !== (body.hex === undefined), {
    message: "give exactly one of text and hex",
    path: ["text"],
  })
  .refine((body) => body.hex === undefined || body.data_coding !== undefined, {
    message: "hex needs its data_coding",
    path: ["data_coding"],
  })
  .refine((body) => body.text === undefined || body.data_coding === undefined, {
    message: "data_coding goes with hex; text is taken as is",
    path: ["data_coding"],
  });
export type InboundBody = z.infer<typeof InboundBody>;

/**
 * Reads a posted inbound message into what the SMPP path stores. A whole `text` is kept as GSM-7
 * when every character is in that alphabet, else UCS-2 (what a handset would have used); a part's
 * `text` is always UCS-2, so the parts of one message never differ in coding.
 */
export function readInboundBody(body: unknown): InboundPiece {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ApiError("VALIDATION_ERROR", "The body must be a JSON object: {message_id, from, to, text}.");
  const message = parseBody(InboundBody, body);
  const part = message.part && message.part.total > 1 ? message.part : null;
  let dataCoding: number;
  let payload: Buffer;
  if (message.hex !== undefined) {
    dataCoding = message.data_coding!;
    payload = Buffer.from(message.hex, "hex");
  } else if (!part && isGsm7(message.text!)) {
    dataCoding = 0;
    payload = Buffer.from(encodeGsm7(message.text!));
  } else {
    dataCoding = 8;
    payload = Buffer.from(encodeUcs2(message.text!));
  }
  return {
    from: addressOf(message.from, undefined),
    to: addressOf(message.to, undefined),
    dataCoding,
    payload,
    part,
    flags: [],
    carrierMessageId: part ? undefined : message.message_id,
  };
}
