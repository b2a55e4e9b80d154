-- Dispatch class of a message. A column with a constant default is added without
-- rewriting the table (PostgreSQL 11+), so this takes only a brief lock.
CREATE TYPE "MessagePriority" AS ENUM ('high', 'normal', 'bulk');

ALTER TABLE "messages" ADD COLUMN "priority" "MessagePriority" NOT NULL DEFAULT 'normal';
