-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "AccountStatus" AS ENUM ('active', 'suspended');

-- CreateEnum
CREATE TYPE "LedgerReason" AS ENUM ('topup', 'message_charge', 'message_refund', 'adjustment');

-- CreateEnum
CREATE TYPE "MessageStatus" AS ENUM ('scheduled', 'queued', 'sent', 'delivered', 'failed', 'canceled');

-- CreateEnum
CREATE TYPE "MessageEncoding" AS ENUM ('GSM7', 'UCS2');

-- CreateEnum
CREATE TYPE "MessageSource" AS ENUM ('api', 'smpp', 'otp');

-- CreateEnum
CREATE TYPE "SegmentStatus" AS ENUM ('pending', 'submitted', 'delivered', 'failed');

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" "AccountStatus" NOT NULL DEFAULT 'active',
    "balance" BIGINT NOT NULL DEFAULT 0,
    "requests_per_second" INTEGER NOT NULL DEFAULT 100,
    "messages_per_second" INTEGER NOT NULL DEFAULT 100,
    "daily_quota" INTEGER NOT NULL DEFAULT 100000,
    "max_batch_size" INTEGER NOT NULL DEFAULT 10000,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "permissions" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sender_ids" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sender_ids_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_ledger" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "delta" BIGINT NOT NULL,
    "balance_after" BIGINT NOT NULL,
    "reason" "LedgerReason" NOT NULL,
    "message_id" TEXT,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_ledger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "batch_id" TEXT,
    "source" "MessageSource" NOT NULL DEFAULT 'api',
    "to_number" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "encoding" "MessageEncoding" NOT NULL,
    "segment_count" INTEGER NOT NULL,
    "credits_charged" INTEGER NOT NULL,
    "status" "MessageStatus" NOT NULL,
    "status_sequence" INTEGER NOT NULL DEFAULT 1,
    "scheduled_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),
    "canceled_at" TIMESTAMPTZ(3),
    "error_code" TEXT,
    "error_message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "message_segments" (
    "message_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "status" "SegmentStatus" NOT NULL DEFAULT 'pending',
    "carrier_id" TEXT,
    "carrier_message_id" TEXT,
    "submitted_at" TIMESTAMPTZ(3),
    "done_at" TIMESTAMPTZ(3),
    "error_code" TEXT,

    CONSTRAINT "message_segments_pkey" PRIMARY KEY ("message_id","seq")
);

-- CreateTable
CREATE TABLE "message_events" (
    "id" BIGSERIAL NOT NULL,
    "message_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "status" "MessageStatus" NOT NULL,
    "previous_status" "MessageStatus",
    "error_code" TEXT,
    "error_message" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "message_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dispatch_outbox" (
    "message_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dispatch_outbox_pkey" PRIMARY KEY ("message_id")
);

-- CreateTable
CREATE TABLE "batches" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "accepted" INTEGER NOT NULL,
    "rejected" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "account_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("account_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "sender_ids_account_id_value_key" ON "sender_ids"("account_id", "value");

-- CreateIndex
CREATE INDEX "credit_ledger_account_id_id_idx" ON "credit_ledger"("account_id", "id");

-- CreateIndex
CREATE INDEX "credit_ledger_message_id_idx" ON "credit_ledger"("message_id");

-- CreateIndex
CREATE INDEX "messages_account_id_created_at_id_idx" ON "messages"("account_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "messages_account_id_status_created_at_idx" ON "messages"("account_id", "status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "messages_account_id_to_number_created_at_idx" ON "messages"("account_id", "to_number", "created_at" DESC);

-- CreateIndex
CREATE INDEX "messages_batch_id_status_idx" ON "messages"("batch_id", "status");

-- CreateIndex
CREATE INDEX "messages_status_scheduled_at_idx" ON "messages"("status", "scheduled_at");

-- CreateIndex
CREATE INDEX "message_segments_carrier_id_carrier_message_id_idx" ON "message_segments"("carrier_id", "carrier_message_id");

-- CreateIndex
CREATE UNIQUE INDEX "message_events_message_id_sequence_key" ON "message_events"("message_id", "sequence");

-- CreateIndex
CREATE INDEX "outbox_events_published_at_created_at_idx" ON "outbox_events"("published_at", "created_at");

-- CreateIndex
CREATE INDEX "outbox_events_message_id_sequence_idx" ON "outbox_events"("message_id", "sequence");

-- CreateIndex
CREATE INDEX "dispatch_outbox_created_at_idx" ON "dispatch_outbox"("created_at");

-- CreateIndex
CREATE INDEX "batches_account_id_created_at_idx" ON "batches"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sender_ids" ADD CONSTRAINT "sender_ids_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "message_segments" ADD CONSTRAINT "message_segments_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "message_events" ADD CONSTRAINT "message_events_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

