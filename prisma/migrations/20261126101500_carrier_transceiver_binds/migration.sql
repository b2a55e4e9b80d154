-- Transceiver carriers (issue 18 item 1): a carrier that takes submits and sends receipts on one
-- bind (Kannel's default; many aggregators allow nothing else). transceiver_binds > 0 puts the
-- carrier in transceiver mode: the dispatcher opens that many transceiver binds and owns their
-- receipts, dlr-ingest opens no receiver binds, and transmitter_binds / receiver_binds are kept
-- but unused (so going back is one update). 0, the default, is the transmitter + receiver mode.
ALTER TABLE "carriers" ADD COLUMN "transceiver_binds" INTEGER NOT NULL DEFAULT 0;

ALTER TABLE "carriers"
  ADD CONSTRAINT "carriers_transceiver_binds_check" CHECK ("transceiver_binds" BETWEEN 0 AND 64);
