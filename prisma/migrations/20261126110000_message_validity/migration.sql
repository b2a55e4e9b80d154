-- validity_period (docs/messages.md#validity): the instant a message's validity ends. Until then it may be
-- handed to a carrier (and the carrier gets what is left of it in submit_sm.validity_period);
-- after it a message not yet with a carrier fails EXPIRED, and one `sent` whose receipts have
-- not come by then plus RECEIPT_TIMEOUT_GRACE_SECONDS fails RECEIPT_TIMEOUT. NULL only on
-- messages that were already final before this column existed.
ALTER TABLE "messages" ADD COLUMN "expires_at" TIMESTAMPTZ(3);

-- Messages still in flight get the default validity (48 h) from when they were due, so no
-- message left `sent` without receipts before this release stays so for ever.
UPDATE "messages" SET "expires_at" = COALESCE("scheduled_at", "created_at") + interval '48 hours'
WHERE "status" IN ('scheduled', 'queued', 'sent');
