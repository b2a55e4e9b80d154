-- CreateEnum
CREATE TYPE "ReceiptOutcome" AS ENUM ('applied', 'ignored', 'unmatched');

-- AlterEnum
ALTER TYPE "SegmentStatus" ADD VALUE 'submitting';

-- AlterTable
ALTER TABLE "message_segments" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "carriers" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "system_id" TEXT NOT NULL,
    "password" TEXT NOT NULL,
    "system_type" TEXT NOT NULL DEFAULT '',
    "use_tls" BOOLEAN NOT NULL DEFAULT false,
    "transmitter_binds" INTEGER NOT NULL DEFAULT 1,
    "receiver_binds" INTEGER NOT NULL DEFAULT 1,
    "window_size" INTEGER NOT NULL DEFAULT 10,
    "submits_per_second" INTEGER NOT NULL DEFAULT 100,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "carriers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "routes" (
    "id" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "carrier_id" TEXT NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "routes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "carrier_receipts" (
    "id" BIGSERIAL NOT NULL,
    "carrier_id" TEXT NOT NULL,
    "carrier_message_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "error_code" TEXT,
    "outcome" "ReceiptOutcome" NOT NULL,
    "message_id" TEXT,
    "seq" INTEGER,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "raw" JSONB,

    CONSTRAINT "carrier_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "routes_prefix_priority_idx" ON "routes"("prefix", "priority");

-- CreateIndex
CREATE UNIQUE INDEX "routes_prefix_carrier_id_key" ON "routes"("prefix", "carrier_id");

-- CreateIndex
CREATE INDEX "carrier_receipts_carrier_id_carrier_message_id_idx" ON "carrier_receipts"("carrier_id", "carrier_message_id");

-- CreateIndex
CREATE INDEX "carrier_receipts_outcome_received_at_idx" ON "carrier_receipts"("outcome", "received_at");

-- AddForeignKey
ALTER TABLE "routes" ADD CONSTRAINT "routes_carrier_id_fkey" FOREIGN KEY ("carrier_id") REFERENCES "carriers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- Defence in depth under the group committer's own check: a balance never goes below zero.
-- (Prisma's datamodel diff does not manage CHECK constraints, so later migrations leave it alone.)
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_balance_not_negative" CHECK ("balance" >= 0);
