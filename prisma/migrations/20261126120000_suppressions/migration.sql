-- Opt-out (issue 16 item 4, docs/api.md#suppressions): per account, the numbers no send may reach.
-- The primary key is the lookup every acceptance makes (account, number); the second index
-- serves GET /v1/suppressions, newest first.
-- CreateEnum
CREATE TYPE "SuppressionSource" AS ENUM ('keyword', 'api', 'admin');

-- CreateTable
CREATE TABLE "suppressions" (
    "account_id" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "source" "SuppressionSource" NOT NULL,
    "reply_number" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "suppressions_pkey" PRIMARY KEY ("account_id","number")
);

-- CreateIndex
CREATE INDEX "suppressions_account_id_created_at_number_idx" ON "suppressions"("account_id", "created_at" DESC, "number" DESC);

-- AddForeignKey
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

