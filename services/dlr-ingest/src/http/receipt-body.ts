import { ApiError } from "@sms/errors";
import { parseBody as parse } from "./parse-body";
import { z } from "@sms/config";
import { doneDateHasSeconds } from "@sms/carrier-receipts";
import { parseReceiptDate, parseReceiptText, stateFromStat, type ReceiptState } from "@sms/smpp";

/** The JSON form of an HTTP receipt; unknown fields are ignored (carriers add their own). */
export const JsonReceiptBody = z.object({
  message_id: z.string().trim().min(1).max(64),
  stat: z.string().trim().min(1).max(32),
  err: z.union([z.string().trim().max(16), z.number().int().min(0).max(999_999)]).optional(),
  done_date: z.string().trim().max(40).optional(),
});
export type JsonReceiptBody = z.infer<typeof JsonReceiptBody>;

/** The text form: the SMPP appendix B receipt text as the carrier would put it in a deliver_sm. */
export const TextReceiptBody = z.object({ text: z.string().min(1).max(2000) });
export type TextReceiptBody = z.infer<typeof TextReceiptBody>;

/** A receipt read from an HTTP body. */
export interface HttpReceipt {
  carrierMessageId: string;
  state: ReceiptState;
  errorCode: string | undefined;
  doneAt: Date | undefined;
  /** doneAt has seconds: recorded as the time it happened (else our receive time is). */
  doneAtHasSeconds: boolean;
  /** What carrier_receipts.raw keeps: the receipt's fields, never the quoted message text or unknown fields. */
  raw: Record<string, unknown>;
}

/** Reads `{message_id, stat, err?, done_date?}` or `{text}`; throws VALIDATION_ERROR naming the field. */
export function readReceiptBody(body: unknown): HttpReceipt {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ApiError(
      "VALIDATION_ERROR",
      "The body must be a JSON object: {message_id, stat, err, done_date} or {text}.",
    );
  if ("text" in body) return fromText(parse(TextReceiptBody, body).text);
  const json = parse(JsonReceiptBody, body);
  return {
    carrierMessageId: json.message_id,
    state: stateFromStat(json.stat),
    errorCode: json.err === undefined ? undefined : String(json.err),
    doneAt: readDoneDate(json.done_date),
    doneAtHasSeconds: doneDateHasSeconds(json.done_date),
    raw: {
      source: "http",
      message_id: json.message_id,
      stat: json.stat,
      err: json.err,
      done_date: json.done_date,
    },
  };
}

function fromText(text: string): HttpReceipt {
  const fields = parseReceiptText(text);
  const id = fields.id?.split(/\s/)[0];
  if (!id || !fields.stat)
    throw new ApiError(
      "VALIDATION_ERROR",
      "text must be a receipt text with at least id: and stat: fields.",
      {
        field: "text",
      },
    );
  return {
    carrierMessageId: id,
    state: stateFromStat(fields.stat),
    errorCode: fields.err || undefined,
    doneAt: readDoneDate(fields["done date"], "text"),
    doneAtHasSeconds: doneDateHasSeconds(fields["done date"]),
    raw: {
      source: "http",
      id,
      stat: fields.stat,
      err: fields.err,
      sub: fields.sub,
      dlvrd: fields.dlvrd,
      submit_date: fields["submit date"],
      done_date: fields["done date"],
    },
  };
}

/** YYMMDDhhmm[ss] (the receipt text's form, read as UTC) or ISO 8601 with a zone. */
function readDoneDate(value: string | undefined, field = "done_date"): Date | undefined {
  if (!value) return undefined;
  const date =
    parseReceiptDate(value) ??
    (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)
      ? new Date(value)
      : undefined);
  if (!date || Number.isNaN(date.getTime()))
    throw new ApiError(
      "VALIDATION_ERROR",
      `${field}: done date must be YYMMDDhhmm (UTC) or ISO 8601 with a time zone.`,
      {
        field,
      },
    );
  return date;
}
