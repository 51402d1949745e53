-- AlterTable
ALTER TABLE "audit_events" ALTER COLUMN "seq" DROP NOT NULL,
ALTER COLUMN "prev_hash" DROP NOT NULL,
ALTER COLUMN "hash" DROP NOT NULL;


-- Hand-written (prisma/README.md, "Indexes Prisma cannot express"): the events not yet sealed
-- into their account's chain, in the order the sealer takes them (src/domain/audit/auditSeal.ts).
CREATE INDEX "audit_events_unsealed_idx" ON "audit_events"("account_id", "occurred_at", "id") WHERE "hash" IS NULL;

-- Hand-written (prisma/README.md, "Triggers Prisma cannot express"): still append-only, but an
-- unsealed event may be sealed once — its place and hashes set, nothing else changed.
CREATE OR REPLACE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('wps.audit_prune', true) = 'on' THEN
    RETURN OLD;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD."hash" IS NULL AND OLD."seq" IS NULL AND NEW."hash" IS NOT NULL AND NEW."seq" IS NOT NULL
     AND NEW."prev_hash" IS NOT NULL
     AND to_jsonb(NEW) - 'seq' - 'prev_hash' - 'hash' = to_jsonb(OLD) - 'seq' - 'prev_hash' - 'hash' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit events are append-only (%)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
