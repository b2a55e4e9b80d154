-- CreateTable
CREATE TABLE "smpp_credentials" (
    "system_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "max_binds" INTEGER NOT NULL DEFAULT 4,
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "smpp_credentials_pkey" PRIMARY KEY ("system_id")
);

-- CreateTable
CREATE TABLE "smpp_submits" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "message_id" TEXT,
    "registered_delivery" SMALLINT NOT NULL DEFAULT 0,
    "source_addr" TEXT NOT NULL,
    "destination_addr" TEXT NOT NULL,
    "concat_key" TEXT,
    "part_seq" INTEGER,
    "part_total" INTEGER,
    "data_coding" SMALLINT,
    "part_bytes" BYTEA,
    "failed_code" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "smpp_submits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "smpp_receipts" (
    "id" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "submit_id" TEXT NOT NULL,
    "message_id" TEXT,
    "source_addr" TEXT NOT NULL,
    "destination_addr" TEXT NOT NULL,
    "message_state" SMALLINT NOT NULL,
    "text" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "smpp_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "smpp_credentials_account_id_key" ON "smpp_credentials"("account_id");

-- CreateIndex
CREATE INDEX "smpp_submits_message_id_idx" ON "smpp_submits"("message_id");

-- CreateIndex
CREATE INDEX "smpp_submits_account_id_concat_key_idx" ON "smpp_submits"("account_id", "concat_key");

-- CreateIndex
CREATE INDEX "smpp_receipts_account_id_next_attempt_at_idx" ON "smpp_receipts"("account_id", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "smpp_receipts_event_id_submit_id_key" ON "smpp_receipts"("event_id", "submit_id");

