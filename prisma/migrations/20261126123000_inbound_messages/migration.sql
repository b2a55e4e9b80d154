-- Inbound messages (docs/messages.md#inbound).

-- The numbers and short codes an account receives on. The number is the key: it belongs to one
-- account at a time (moving it is remove, then add).
CREATE TABLE "inbound_numbers" (
    "number" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_numbers_pkey" PRIMARY KEY ("number"),
    CONSTRAINT "inbound_numbers_number_check" CHECK ("number" ~ '^(\+[1-9][0-9]{6,14}|[0-9]{3,8})$')
);
CREATE INDEX "inbound_numbers_account_id_idx" ON "inbound_numbers"("account_id");
ALTER TABLE "inbound_numbers" ADD CONSTRAINT "inbound_numbers_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- One row per inbound message, whole (its parts reassembled). account_id is NULL when nobody owns
-- the destination number: kept, not dropped, so it can be assigned by hand or explained.
CREATE TABLE "inbound_messages" (
    "id" TEXT NOT NULL,
    "account_id" TEXT,
    "carrier_id" TEXT NOT NULL,
    "from_addr" TEXT NOT NULL,
    "to_addr" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "encoding" TEXT NOT NULL,
    "data_coding" SMALLINT NOT NULL,
    "segments" INTEGER NOT NULL,
    "flags" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_messages_pkey" PRIMARY KEY ("id")
);
-- GET /v1/inbound: an account's messages newest first (ids are ULIDs: time-ordered).
CREATE INDEX "inbound_messages_account_id_id_idx" ON "inbound_messages"("account_id", "id" DESC);
ALTER TABLE "inbound_messages" ADD CONSTRAINT "inbound_messages_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Parts of concatenated inbound messages waiting for the rest, shared by every bind and replica.
-- A group is carrier + from + to + reference + total; the primary key makes a redelivered part a
-- no-op. Once the group is whole (or timed out) its rows stay with inbound_id set, so a part
-- redelivered afterwards is still recognised, and are deleted by the sweep after a while.
CREATE TABLE "inbound_parts" (
    "carrier_id" TEXT NOT NULL,
    "source_addr" TEXT NOT NULL,
    "destination_addr" TEXT NOT NULL,
    "reference" INTEGER NOT NULL,
    "total" SMALLINT NOT NULL,
    "seq" SMALLINT NOT NULL,
    "data_coding" SMALLINT NOT NULL,
    "payload" BYTEA NOT NULL,
    "inbound_id" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_parts_pkey" PRIMARY KEY ("carrier_id", "source_addr", "destination_addr", "reference", "total", "seq")
);
-- The purge of stored parts, by age.
CREATE INDEX "inbound_parts_received_at_idx" ON "inbound_parts"("received_at");
-- The timeout sweep reads the waiting parts only: a partial index keeps it off the parts kept for dedup.
CREATE INDEX "inbound_parts_waiting_idx" ON "inbound_parts"("received_at") WHERE "inbound_id" IS NULL;
