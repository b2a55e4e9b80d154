-- Carrier SMPP passwords are sealed at rest like webhook secrets (issue 19 item 15). SQL cannot
-- seal (the key is the services', never the database's): the dispatcher seals every row whose
-- password is still in clear when it reads the carriers (at start, then every CARRIER_REFRESH_MS),
-- writing password_sealed and emptying password. Until then readers use the clear password.
ALTER TABLE "carriers" ADD COLUMN "password_sealed" TEXT;
