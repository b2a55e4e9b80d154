-- Issue 17 item 7: what a carrier takes for data_coding 0. 'unpacked': GSM-7, one septet per octet
-- (what SMPP carriers mostly expect); 'packed': GSM-7 packed 7 bits per septet; 'latin1': the
-- carrier reads data_coding 0 as ISO-8859-1, so GSM-7 text goes in its Latin-1 octets.
ALTER TABLE "carriers" ADD COLUMN "gsm7_encoding" TEXT NOT NULL DEFAULT 'unpacked',
  ADD CONSTRAINT "carriers_gsm7_encoding_check" CHECK ("gsm7_encoding" IN ('unpacked', 'packed', 'latin1'));
