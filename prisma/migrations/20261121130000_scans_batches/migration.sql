-- CreateEnum
CREATE TYPE "scan_type" AS ENUM ('nfc', 'barcode');

-- CreateEnum
CREATE TYPE "scan_validation_type" AS ENUM ('internalValidation', 'externalValidation');

-- CreateEnum
CREATE TYPE "scan_status" AS ENUM ('successful', 'failed');

-- CreateEnum
CREATE TYPE "batch_type" AS ENUM ('walletMessaging', 'passCreation', 'passUpdate');

-- CreateEnum
CREATE TYPE "batch_status" AS ENUM ('validating', 'scheduled', 'sending', 'successful', 'completedWithErrors', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "batch_delivery_status" AS ENUM ('sent', 'failed');

-- CreateTable
CREATE TABLE "scans" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "pass_id" UUID NOT NULL,
    "reader_id" UUID NOT NULL,
    "scan_type" "scan_type" NOT NULL,
    "scan_value" VARCHAR(1024) NOT NULL,
    "validation_type" "scan_validation_type" NOT NULL,
    "status" "scan_status" NOT NULL,
    "status_detail" VARCHAR(500) NOT NULL,
    "scanned_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "scans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batches" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "entity_id" UUID NOT NULL,
    "type" "batch_type" NOT NULL DEFAULT 'walletMessaging',
    "name" VARCHAR(100) NOT NULL,
    "tag" VARCHAR(100),
    "content" VARCHAR(350) NOT NULL,
    "status" "batch_status" NOT NULL DEFAULT 'validating',
    "status_detail" VARCHAR(500),
    "scheduled_at" TIMESTAMPTZ(3) NOT NULL,
    "segment_tags" VARCHAR(100)[],
    "recipient_count" INTEGER,
    "error_count" INTEGER NOT NULL DEFAULT 0,
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_recipients" (
    "batch_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "account_id" UUID NOT NULL,
    "pass_ref" VARCHAR(64) NOT NULL,
    "variables" JSONB NOT NULL,
    "pass_id" UUID,
    "error" VARCHAR(500),

    CONSTRAINT "batch_recipients_pkey" PRIMARY KEY ("batch_id","position")
);

-- CreateTable
CREATE TABLE "batch_deliveries" (
    "batch_id" UUID NOT NULL,
    "pass_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "status" "batch_delivery_status" NOT NULL,
    "message" VARCHAR(350),
    "error" VARCHAR(500),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "batch_deliveries_pkey" PRIMARY KEY ("batch_id","pass_id")
);

-- CreateIndex
CREATE INDEX "scans_account_id_scanned_at_id_idx" ON "scans"("account_id", "scanned_at", "id");

-- CreateIndex
CREATE INDEX "scans_account_id_reader_id_scanned_at_id_idx" ON "scans"("account_id", "reader_id", "scanned_at", "id");

-- CreateIndex
CREATE INDEX "scans_account_id_pass_id_scanned_at_id_idx" ON "scans"("account_id", "pass_id", "scanned_at", "id");

-- CreateIndex
CREATE INDEX "scans_account_id_status_scanned_at_id_idx" ON "scans"("account_id", "status", "scanned_at", "id");

-- CreateIndex
CREATE INDEX "batches_account_id_created_at_id_idx" ON "batches"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "batches_account_id_type_created_at_id_idx" ON "batches"("account_id", "type", "created_at", "id");

-- CreateIndex
CREATE INDEX "batches_entity_id_idx" ON "batches"("entity_id");

-- CreateIndex
CREATE INDEX "batch_recipients_account_id_idx" ON "batch_recipients"("account_id");

-- CreateIndex
CREATE INDEX "batch_recipients_pass_id_idx" ON "batch_recipients"("pass_id");

-- CreateIndex
CREATE INDEX "batch_deliveries_account_id_idx" ON "batch_deliveries"("account_id");

-- CreateIndex
CREATE INDEX "batch_deliveries_pass_id_idx" ON "batch_deliveries"("pass_id");

-- AddForeignKey
ALTER TABLE "loyalty_ledger" ADD CONSTRAINT "loyalty_ledger_scan_id_fkey" FOREIGN KEY ("scan_id") REFERENCES "scans"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scans" ADD CONSTRAINT "scans_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scans" ADD CONSTRAINT "scans_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scans" ADD CONSTRAINT "scans_reader_id_fkey" FOREIGN KEY ("reader_id") REFERENCES "readers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_recipients" ADD CONSTRAINT "batch_recipients_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_recipients" ADD CONSTRAINT "batch_recipients_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_recipients" ADD CONSTRAINT "batch_recipients_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_deliveries" ADD CONSTRAINT "batch_deliveries_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_deliveries" ADD CONSTRAINT "batch_deliveries_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_deliveries" ADD CONSTRAINT "batch_deliveries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

