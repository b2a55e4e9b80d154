-- SMPP binds outlive nothing they were granted on: a change to an account's SMPP password,
-- system_id or bind limit, the removal of its credentials, or a change of the account's
-- status notifies every smpp-server replica (LISTEN smpp_binds_changed, payload the account
-- id), which closes the binds that no longer hold. A trigger, so every writer (admin CLI,
-- dashboard, plain SQL) is covered.
CREATE FUNCTION "notify_smpp_binds_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'accounts' THEN
    PERFORM pg_notify('smpp_binds_changed', NEW."id");
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('smpp_binds_changed', OLD."account_id");
  ELSE
    PERFORM pg_notify('smpp_binds_changed', NEW."account_id");
    IF OLD."account_id" <> NEW."account_id" THEN
      PERFORM pg_notify('smpp_binds_changed', OLD."account_id");
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "smpp_credentials_changed"
  AFTER UPDATE OF "password_hash", "system_id", "max_binds", "account_id" ON "smpp_credentials"
  FOR EACH ROW
  WHEN (OLD."password_hash" IS DISTINCT FROM NEW."password_hash"
        OR OLD."system_id" IS DISTINCT FROM NEW."system_id"
        OR OLD."max_binds" IS DISTINCT FROM NEW."max_binds"
        OR OLD."account_id" IS DISTINCT FROM NEW."account_id")
  EXECUTE FUNCTION "notify_smpp_binds_changed"();

CREATE TRIGGER "smpp_credentials_removed"
  AFTER DELETE ON "smpp_credentials"
  FOR EACH ROW EXECUTE FUNCTION "notify_smpp_binds_changed"();

CREATE TRIGGER "accounts_status_changed"
  AFTER UPDATE OF "status" ON "accounts"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION "notify_smpp_binds_changed"();
