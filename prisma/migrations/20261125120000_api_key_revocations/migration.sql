-- A revoked API key stops working within a second on every gateway replica (issue 19 item 11):
-- revoking, re-permissioning or deleting a key notifies `api_keys_changed` with the key's hash,
-- and an account's change of status with its id; each gateway drops those entries from its key
-- cache. A trigger, so every writer (admin CLI, dashboard, plain SQL) is covered.
CREATE FUNCTION "notify_api_keys_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'accounts' THEN
    PERFORM pg_notify('api_keys_changed', NEW."id");
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('api_keys_changed', OLD."hash");
  ELSE
    PERFORM pg_notify('api_keys_changed', OLD."hash");
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "api_keys_changed"
  AFTER UPDATE OF "revoked_at", "permissions", "account_id", "hash" ON "api_keys"
  FOR EACH ROW
  WHEN (OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at"
        OR OLD."permissions" IS DISTINCT FROM NEW."permissions"
        OR OLD."account_id" IS DISTINCT FROM NEW."account_id"
        OR OLD."hash" IS DISTINCT FROM NEW."hash")
  EXECUTE FUNCTION "notify_api_keys_changed"();

CREATE TRIGGER "api_keys_removed"
  AFTER DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "notify_api_keys_changed"();

CREATE TRIGGER "accounts_changed_for_api_keys"
  AFTER UPDATE OF "status" ON "accounts"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION "notify_api_keys_changed"();
