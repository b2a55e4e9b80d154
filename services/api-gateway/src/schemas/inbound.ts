import { z } from "zod";
import { text as safeText } from "./common";

export const InboundEncoding = z.enum(["GSM-7", "IA5", "Latin-1", "UCS-2", "hex"]).meta({
  id: "InboundEncoding",
  description:
    "How the text was decoded; hex: a data_coding we do not decode, the octets in hex (flag undecodable)",
});

export const InboundFlag = z
  .enum(["malformed_udh", "invalid_part_number", "undecodable", "incomplete", "empty", "mixed_data_coding"])
  .meta({ id: "InboundFlag" });

export const InboundView = z
  .object({
    id: z.string().meta({ example: "in_01JD6Z8Q4G2M0F3T6S8V9W0X22" }),
    from: z
      .string()
      .meta({ description: "The sender as the carrier gave it: E.164 for a number, else as is" }),
    to: z.string().meta({ description: "The account's number or short code" }),
    text: z.string(),
    encoding: InboundEncoding,
    segments: z.number().int().meta({ description: "Parts it arrived in" }),
    flags: z
      .array(InboundFlag)
      .meta({ description: "What was wrong with it, if anything (docs/smpp.md#inbound-messages)" }),
    received_at: z.string(),
  })
  .meta({ id: "InboundMessage" });

export const ListInboundQuery = z.strictObject({
  from: safeText().max(32).optional().meta({ description: "Only messages from this sender" }),
  to: safeText().max(32).optional().meta({ description: "Only messages to this number or short code" }),
  since: z.iso.datetime({ offset: true }).optional().meta({ description: "Received at or after (ISO 8601)" }),
  until: z.iso.datetime({ offset: true }).optional().meta({ description: "Received before (ISO 8601)" }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: safeText().max(200).optional().meta({ description: "next_cursor of the previous page" }),
});

export const InboundList = z
  .object({ data: z.array(InboundView), next_cursor: z.string().nullable() })
  .meta({ id: "InboundList" });

export const InboundIdParam = z.object({
  inbound_id: z.string().max(40).meta({ example: "in_01JD6Z8Q4G2M0F3T6S8V9W0X22" }),
});
