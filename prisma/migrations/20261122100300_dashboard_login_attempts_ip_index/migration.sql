-- The per-client-address sign-in lockout counts the failures from one address in the
-- window. The table keeps a day of attempts, so a plain build is brief.
CREATE INDEX "dashboard_login_attempts_ip_at_idx" ON "dashboard_login_attempts"("ip", "at");
