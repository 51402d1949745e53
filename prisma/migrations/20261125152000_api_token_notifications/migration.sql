-- Hand-written (prisma/README.md, "Triggers Prisma cannot express"): a revoked or deleted API
-- key is announced on the api_tokens_changed channel (payload: its id) when the transaction
-- commits, so that every process and node drops it from its cache of verified keys
-- (src/security/apiTokenCache.ts). Other changes (last_used_at every minute) announce nothing.
CREATE FUNCTION "api_tokens_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_tokens_changed', OLD.id::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER "api_tokens_revoked" AFTER UPDATE OF "revoked_at" ON "api_tokens"
  FOR EACH ROW WHEN (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at) EXECUTE FUNCTION "api_tokens_changed"();

CREATE TRIGGER "api_tokens_deleted" AFTER DELETE ON "api_tokens"
  FOR EACH ROW EXECUTE FUNCTION "api_tokens_changed"();
