-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "allowed_cidrs" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "allowed_origins" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "entity_ids" UUID[] DEFAULT ARRAY[]::UUID[],
ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "kind" VARCHAR(16) NOT NULL DEFAULT 'secret',
ADD COLUMN     "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "template_ids" UUID[] DEFAULT ARRAY[]::UUID[];

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "actor_type" VARCHAR(32) NOT NULL,
    "actor_id" VARCHAR(200),
    "actor_name" VARCHAR(200),
    "actor_kind" VARCHAR(16),
    "channel" VARCHAR(16) NOT NULL,
    "operation_id" VARCHAR(100) NOT NULL,
    "resource_type" VARCHAR(64) NOT NULL,
    "resource_id" VARCHAR(200),
    "changes" JSONB NOT NULL,
    "request_id" VARCHAR(200),
    "client_address" VARCHAR(64),
    "user_agent" VARCHAR(500),
    "outcome" VARCHAR(16) NOT NULL,
    "status" INTEGER,
    "prev_hash" BYTEA NOT NULL,
    "hash" BYTEA NOT NULL,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_chain_heads" (
    "account_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "hash" BYTEA NOT NULL,
    "prev_hash" BYTEA NOT NULL,
    "anchor_hash" BYTEA NOT NULL,
    "anchor_seq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "audit_chain_heads_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE INDEX "audit_events_account_id_occurred_at_idx" ON "audit_events"("account_id", "occurred_at");

-- CreateIndex
CREATE INDEX "audit_events_account_id_resource_type_resource_id_occurred__idx" ON "audit_events"("account_id", "resource_type", "resource_id", "occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_account_id_seq_key" ON "audit_events"("account_id", "seq");


-- Hand-written (prisma/README.md, "Triggers Prisma cannot express"): the audit log is
-- append-only. No statement changes an event; only the retention job deletes, inside a
-- transaction that set `wps.audit_prune` to `on` (src/domain/audit/auditRetention.ts).
CREATE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('wps.audit_prune', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit events are append-only (%)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER "audit_events_append_only" BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_append_only"();
