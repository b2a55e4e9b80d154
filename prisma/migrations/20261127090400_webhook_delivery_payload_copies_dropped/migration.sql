-- Existing deliveries drop their copy of the payload where the event row can rebuild it. Only
-- succeeded ones: no sender reads those again, so a webhook-delivery still running the previous
-- code (which reads the copy) during the rollout is never handed a row without one; pending and
-- failed rows keep their copy. Walked in primary-key order, 5,000 rows a batch, each batch
-- committed on its own (the migration is one statement, so it runs outside a transaction
-- block): no row stays locked longer than a batch, and each batch's space is free for reuse
-- after the next vacuum.
DO $$
DECLARE
  last_id text := '';
  batch_end text;
BEGIN
  LOOP
    SELECT max(event_id) INTO batch_end
    FROM (SELECT event_id FROM webhook_deliveries WHERE event_id > last_id ORDER BY event_id LIMIT 5000) AS batch;
    EXIT WHEN batch_end IS NULL;
    UPDATE webhook_deliveries AS d SET payload = NULL
    WHERE d.event_id > last_id AND d.event_id <= batch_end
      AND d.status = 'succeeded' AND d.payload IS NOT NULL
      AND EXISTS (SELECT 1 FROM outbox_events AS o WHERE o.id = d.event_id);
    last_id := batch_end;
    COMMIT;
  END LOOP;
END $$;
