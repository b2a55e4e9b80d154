import { z } from "zod";
import { text as safeText } from "./common";

export const SuppressionSource = z.enum(["keyword", "api", "admin"]).meta({
  id: "SuppressionSource",
  description:
    "keyword: the number replied STOP (or another STOP-family word); api: added by the account (POST /v1/suppressions or the dashboard); admin: added by an operator",
});

export const SuppressionView = z
  .object({
    number: z.string().meta({ description: "E.164", example: "+14155550100" }),
    source: SuppressionSource,
    reply_number: z.string().nullable().meta({
      description: "The account's number that received the STOP (source keyword); null otherwise",
      example: "+14155550999",
    }),
    created_at: z.string().meta({ description: "When it was added (ISO 8601 UTC)" }),
  })
  .meta({ id: "Suppression" });

export const SuppressionList = z
  .object({ data: z.array(SuppressionView), next_cursor: z.string().nullable() })
  .meta({ id: "SuppressionList" });

export const ListSuppressionsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: safeText().max(200).optional().meta({ description: "next_cursor of the previous page" }),
});

export const AddSuppressionRequest = z
  .strictObject({
    number: safeText()
      .max(32)
      .meta({ description: "E.164 number with a leading +", example: "+14155550100" }),
  })
  .meta({ id: "AddSuppressionRequest" });

export const SuppressionNumberParam = z.object({
  number: z.string().max(40).meta({
    description: "The E.164 number, its + URL-encoded (%2B) or left as is",
    example: "+14155550100",
  }),
});
