-- AlterEnum
ALTER TYPE "batch_status" ADD VALUE 'processing';

-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "processed_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "row_count" INTEGER,
ADD COLUMN     "template_id" UUID,
ALTER COLUMN "entity_id" DROP NOT NULL,
ALTER COLUMN "content" DROP NOT NULL;

-- CreateTable
CREATE TABLE "batch_rows" (
    "batch_id" UUID NOT NULL,
    "row_number" INTEGER NOT NULL,
    "account_id" UUID NOT NULL,
    "cells" JSONB NOT NULL,
    "ref" VARCHAR(64),
    "error" VARCHAR(500),
    "error_column" VARCHAR(80),
    "pass_id" UUID,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "batch_rows_pkey" PRIMARY KEY ("batch_id","row_number")
);

-- CreateIndex
CREATE INDEX "batch_rows_account_id_idx" ON "batch_rows"("account_id");

-- CreateIndex
CREATE INDEX "batch_rows_pass_id_idx" ON "batch_rows"("pass_id");

-- CreateIndex
CREATE INDEX "batch_rows_batch_id_ref_idx" ON "batch_rows"("batch_id", "ref");

-- CreateIndex
CREATE INDEX "batches_template_id_idx" ON "batches"("template_id");

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "pass_templates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_rows" ADD CONSTRAINT "batch_rows_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_rows" ADD CONSTRAINT "batch_rows_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_rows" ADD CONSTRAINT "batch_rows_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

