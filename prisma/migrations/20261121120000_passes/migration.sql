-- CreateEnum
CREATE TYPE "pass_status" AS ENUM ('issued', 'active', 'removed', 'deactivated', 'nullified');

-- CreateEnum
CREATE TYPE "pass_device_type" AS ENUM ('android', 'iphone');

-- CreateEnum
CREATE TYPE "loyalty_change_source" AS ENUM ('api', 'scan');

-- CreateTable
CREATE TABLE "passes" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "template_id" UUID NOT NULL,
    "ext_id" VARCHAR(64),
    "status" "pass_status" NOT NULL DEFAULT 'issued',
    "content" JSON NOT NULL,
    "barcode" JSONB,
    "nfc" JSONB,
    "locations" JSON NOT NULL,
    "beacons" JSON NOT NULL,
    "group_tags" VARCHAR(100)[],
    "balance" INTEGER NOT NULL DEFAULT 0,
    "latest_message" VARCHAR(350),
    "device_type" "pass_device_type",
    "expires_at" TIMESTAMPTZ(3),
    "added_at" TIMESTAMPTZ(3),
    "removed_at" TIMESTAMPTZ(3),
    "deactivated_at" TIMESTAMPTZ(3),
    "nullified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "passes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "loyalty_ledger" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "pass_id" UUID NOT NULL,
    "delta" INTEGER NOT NULL,
    "balance" INTEGER NOT NULL,
    "source" "loyalty_change_source" NOT NULL,
    "scan_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "loyalty_ledger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "account_id" UUID NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "response_status" INTEGER,
    "response_body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("account_id","key")
);

-- CreateIndex
CREATE INDEX "passes_account_id_created_at_id_idx" ON "passes"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "passes_account_id_template_id_created_at_id_idx" ON "passes"("account_id", "template_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "passes_account_id_status_created_at_id_idx" ON "passes"("account_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "passes_account_id_ext_id_idx" ON "passes"("account_id", "ext_id");

-- CreateIndex
CREATE INDEX "passes_group_tags_idx" ON "passes" USING GIN ("group_tags");

-- CreateIndex
CREATE INDEX "loyalty_ledger_pass_id_id_idx" ON "loyalty_ledger"("pass_id", "id");

-- CreateIndex
CREATE INDEX "loyalty_ledger_account_id_created_at_idx" ON "loyalty_ledger"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "idempotency_keys_account_id_expires_at_idx" ON "idempotency_keys"("account_id", "expires_at");

-- AddForeignKey
ALTER TABLE "passes" ADD CONSTRAINT "passes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "passes" ADD CONSTRAINT "passes_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "pass_templates"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "loyalty_ledger" ADD CONSTRAINT "loyalty_ledger_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "loyalty_ledger" ADD CONSTRAINT "loyalty_ledger_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex (by hand: Prisma cannot express a partial index; see prisma/README.md)
-- An extId is unique among the account's passes that are not nullified; a nullified pass keeps
-- its extId for the record and frees it for a new pass.
CREATE UNIQUE INDEX "passes_account_id_ext_id_live_key" ON "passes"("account_id", "ext_id") WHERE "status" <> 'nullified';
