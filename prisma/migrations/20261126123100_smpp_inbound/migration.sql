-- Inbound messages waiting to be written to an SMPP receiver or transceiver bind of the account
-- (issue 16 item 3): one row per deliver_sm part, written with the inbound message for an account
-- with SMPP credentials, deleted once the customer answered ESME_ROK (held while none is bound).
CREATE TABLE "smpp_inbound" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "inbound_id" TEXT NOT NULL,
    "part_seq" SMALLINT NOT NULL,
    "source_addr" TEXT NOT NULL,
    "destination_addr" TEXT NOT NULL,
    "esm_class" SMALLINT NOT NULL,
    "data_coding" SMALLINT NOT NULL,
    "short_message" BYTEA NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "smpp_inbound_pkey" PRIMARY KEY ("id")
) WITH (fillfactor = 70);
-- The claim walks an account's rows in id order (as smpp_receipts: next_attempt_at in no index, a HOT update).
CREATE INDEX "smpp_inbound_account_id_id_idx" ON "smpp_inbound"("account_id", "id");
