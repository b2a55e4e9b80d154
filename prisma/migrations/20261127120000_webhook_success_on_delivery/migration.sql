-- A delivery's successful attempt is kept on its own row instead of in webhook_attempts: its
-- number (attempts), status code (last_status_code), start (last_attempt_at) and end
-- (succeeded_at; the latency is their difference). success_on_row = true says so. A nullable
-- column with no default changes the catalog only: no table rewrite, and the ACCESS EXCLUSIVE
-- lock it takes is held for an instant (it waits for running statements on the table, which
-- are short here). Rows written before keep their success in webhook_attempts (the column stays
-- NULL on them) and every reader shows it from there: nothing to backfill.
ALTER TABLE "webhook_deliveries" ADD COLUMN IF NOT EXISTS "success_on_row" BOOLEAN;
