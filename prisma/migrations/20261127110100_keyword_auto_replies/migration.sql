-- Per-account texts sent back to the STOP, START and HELP keyword families (off by default: NULL).
ALTER TABLE "accounts" ADD COLUMN "auto_reply_stop" TEXT,
ADD COLUMN "auto_reply_start" TEXT,
ADD COLUMN "auto_reply_help" TEXT;
