-- No query reads segments by the carrier's id as sent: receipts find their segment by
-- (carrier_id, receipt_key), the id normalised by the carrier's receipt form. The index cost
-- an entry per segment and per submit.
DROP INDEX CONCURRENTLY IF EXISTS "message_segments_carrier_id_carrier_message_id_idx";
