/**
 * How a carrier's receipts quote the id its submit_sm_resp gave (carriers.receipt_id_form):
 * `as_is` the same id, `hex` the response's decimal id written in hexadecimal, `decimal` the
 * response's hexadecimal id written in decimal. One form per carrier: a receipt is looked up
 * under exactly one key, never under a decimal/hex twin another message may own.
 */
export const RECEIPT_ID_FORMS = ["as_is", "hex", "decimal"] as const;
export type ReceiptIdForm = (typeof RECEIPT_ID_FORMS)[number];

export function isReceiptIdForm(value: string): value is ReceiptIdForm {
  return (RECEIPT_ID_FORMS as readonly string[]).includes(value);
}

/**
 * The key a receipt is matched by: the quoted id trimmed; an id of hexadecimal digits only is
 * lowercased and loses its leading zeros (carriers pad). The same as SQL receipt_key_of, which
 * carrier_receipts and the segments' trigger use: a test holds them equal.
 */
export function receiptKeyOf(id: string): string | null {
  const trimmed = id.trim();
  if (trimmed === "") return null;
  if (!/^[0-9a-f]+$/i.test(trimmed)) return trimmed;
  return trimmed.toLowerCase().replace(/^0+/, "") || "0";
}

/**
 * The key a receipt for a submit answered with `id` will quote, per the carrier's form; an id
 * that is not a number in the form's source base is taken as it is. The same as SQL
 * receipt_key_for_submit (the trigger that sets message_segments.receipt_key).
 */
export function receiptKeyForSubmit(id: string, form: ReceiptIdForm): string | null {
  const trimmed = id.trim();
  if (form === "decimal" && /^[0-9a-f]{1,64}$/i.test(trimmed)) return BigInt(`0x${trimmed}`).toString(10);
  if (form === "hex" && /^[0-9]{1,64}$/.test(trimmed)) return BigInt(trimmed).toString(16);
  return receiptKeyOf(trimmed);
}

/** The advisory lock key of a receipt key: the dispatcher and dlr-ingest take the same one. */
export function receiptLockKey(carrierId: string, key: string): string {
  return `${carrierId}:${key}`;
}
