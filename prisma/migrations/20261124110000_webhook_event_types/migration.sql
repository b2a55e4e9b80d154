-- The event types a webhook endpoint receives; NULL is every message.* event, the default
-- (docs/decisions.md#webhook-event-types). Nullable without a default: adding it rewrites no row.
ALTER TABLE "webhook_endpoints" ADD COLUMN "event_types" TEXT[];

-- An endpoint that wants nothing is disabled instead: an empty list would be a silent one.
ALTER TABLE "webhook_endpoints"
  ADD CONSTRAINT "webhook_endpoints_event_types_not_empty"
  CHECK ("event_types" IS NULL OR cardinality("event_types") > 0);
