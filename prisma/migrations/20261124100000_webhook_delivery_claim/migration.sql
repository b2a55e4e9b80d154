-- The batch job that is sending a pending delivery (docs/decisions.md: webhook claims).
-- Nullable without a default: adding it rewrites no row.
ALTER TABLE "webhook_deliveries" ADD COLUMN "claim" TEXT;
