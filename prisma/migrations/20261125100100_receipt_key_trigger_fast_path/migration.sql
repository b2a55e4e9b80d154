-- The dispatcher's mark (INSERT … ON CONFLICT SET carrier_id) fires the receipt-key trigger for
-- every segment it puts on the wire, before any carrier id exists: skip the carriers look-up then.
CREATE OR REPLACE FUNCTION message_segments_receipt_key() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.carrier_message_id IS NULL OR btrim(NEW.carrier_message_id) = '' THEN
    NEW.receipt_key := NULL;
  ELSE
    NEW.receipt_key := receipt_key_for_submit(
      NEW.carrier_message_id,
      COALESCE((SELECT receipt_id_form FROM carriers WHERE id = NEW.carrier_id), 'as_is'));
  END IF;
  RETURN NEW;
END
$$;
