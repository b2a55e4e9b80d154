-- AlterTable
ALTER TABLE "message_segments" ADD COLUMN     "submitted_by" TEXT;

-- AlterTable
ALTER TABLE "carrier_receipts" ADD COLUMN     "received_by" TEXT;

