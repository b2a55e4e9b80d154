-- Geo permissions: the destination countries (ISO 3166-1 alpha-2) an account may send to;
-- empty means all. A constant default adds the column without rewriting the table.
ALTER TABLE "accounts" ADD COLUMN "allowed_countries" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
