-- Issue 17: receipts match under one key per carrier, never a decimal/hex twin; submits whose
-- fate is unknown are counted on the segment; receipt times keep the carrier's done date beside ours.

-- How a carrier's receipts quote the id its submit_sm_resp gave: 'as_is' (the same id), 'hex' (the
-- response's decimal id written in hex), 'decimal' (the response's hex id written in decimal).
ALTER TABLE "carriers" ADD COLUMN "receipt_id_form" TEXT NOT NULL DEFAULT 'as_is',
  ADD CONSTRAINT "carriers_receipt_id_form_check" CHECK ("receipt_id_form" IN ('as_is', 'hex', 'decimal'));
-- A segment older than this no longer takes receipts (carriers reuse ids after a while).
ALTER TABLE "carriers" ADD COLUMN "receipt_window_hours" INTEGER NOT NULL DEFAULT 72,
  ADD CONSTRAINT "carriers_receipt_window_hours_check" CHECK ("receipt_window_hours" BETWEEN 1 AND 8760);

ALTER TABLE "message_segments" ADD COLUMN "receipt_key" TEXT,
  ADD COLUMN "submit_started_at" TIMESTAMPTZ(3),
  ADD COLUMN "unanswered_submits" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "carrier_done_at" TIMESTAMPTZ(3);

ALTER TABLE "carrier_receipts" ADD COLUMN "receipt_key" TEXT,
  ADD COLUMN "carrier_done_at" TIMESTAMPTZ(3),
  ADD COLUMN "done_at" TIMESTAMPTZ(3);

-- An id as a receipt quotes it, normalised: trimmed; an id of hexadecimal digits only is lowercased
-- and loses its leading zeros (carriers pad: '0000' || id). Anything else is kept as it is.
CREATE FUNCTION receipt_key_of(id TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN id IS NULL OR btrim(id) = '' THEN NULL
    WHEN btrim(id) ~ '^[0-9A-Fa-f]+$' THEN COALESCE(NULLIF(ltrim(lower(btrim(id)), '0'), ''), '0')
    ELSE btrim(id)
  END
$$;

-- The key a receipt for a submit answered with `id` will quote, per the carrier's receipt_id_form.
-- An id that is not a number in the form's source base is taken as it is.
CREATE FUNCTION receipt_key_for_submit(id TEXT, form TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  digits TEXT := btrim(id);
  n NUMERIC := 0;
  hex TEXT := '';
  i INT;
BEGIN
  IF digits IS NULL OR digits = '' THEN RETURN NULL; END IF;
  IF form = 'decimal' AND digits ~ '^[0-9A-Fa-f]{1,64}$' THEN
    FOR i IN 1..length(digits) LOOP
      n := n * 16 + strpos('0123456789abcdef', lower(substr(digits, i, 1))) - 1;
    END LOOP;
    RETURN n::TEXT;
  ELSIF form = 'hex' AND digits ~ '^[0-9]{1,64}$' THEN
    n := digits::NUMERIC;
    IF n = 0 THEN RETURN '0'; END IF;
    WHILE n > 0 LOOP
      hex := substr('0123456789abcdef', (mod(n, 16))::INT + 1, 1) || hex;
      n := div(n, 16);
    END LOOP;
    RETURN hex;
  END IF;
  RETURN receipt_key_of(digits);
END
$$;

-- Computed where the carrier id is written, so every writer (the dispatcher, fixtures, repairs) agrees.
CREATE FUNCTION message_segments_receipt_key() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  NEW.receipt_key := receipt_key_for_submit(
    NEW.carrier_message_id,
    COALESCE((SELECT receipt_id_form FROM carriers WHERE id = NEW.carrier_id), 'as_is'));
  RETURN NEW;
END
$$;

CREATE TRIGGER message_segments_receipt_key BEFORE INSERT OR UPDATE OF carrier_message_id, carrier_id
  ON message_segments FOR EACH ROW EXECUTE FUNCTION message_segments_receipt_key();

UPDATE message_segments SET receipt_key = receipt_key_of(carrier_message_id) WHERE carrier_message_id IS NOT NULL;
UPDATE carrier_receipts SET receipt_key = receipt_key_of(carrier_message_id);

CREATE INDEX "message_segments_carrier_id_receipt_key_idx" ON "message_segments" ("carrier_id", "receipt_key");
CREATE INDEX "carrier_receipts_carrier_id_receipt_key_idx" ON "carrier_receipts" ("carrier_id", "receipt_key")
  WHERE outcome = 'unmatched';
