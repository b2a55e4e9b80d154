-- A message's history is keyed by (message_id, sequence), which already had its unique
-- index: it becomes the primary key and the surrogate bigint id, which nothing read, goes
-- with its own index. One short transaction: the unique index is promoted as it is (its
-- columns are NOT NULL, so nothing is scanned) and dropping a column rewrites nothing.
ALTER TABLE "message_events" DROP CONSTRAINT "message_events_pkey";
ALTER TABLE "message_events" ADD CONSTRAINT "message_events_pkey" PRIMARY KEY USING INDEX "message_events_message_id_sequence_key";
ALTER TABLE "message_events" DROP COLUMN "id";
