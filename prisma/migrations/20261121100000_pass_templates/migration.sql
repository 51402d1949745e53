-- CreateEnum
CREATE TYPE "pass_template_type" AS ENUM ('generic', 'eventTicket', 'storeCard', 'loyalty', 'transit');

-- CreateEnum
CREATE TYPE "transit_type" AS ENUM ('airplane', 'bus', 'train', 'ferry', 'other');

-- CreateEnum
CREATE TYPE "pass_template_processing_status" AS ENUM ('processing', 'processed', 'failed');

-- CreateTable
CREATE TABLE "pass_templates" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "description" VARCHAR(500),
    "template_type" "pass_template_type" NOT NULL,
    "transit_type" "transit_type",
    "default_language" VARCHAR(2) NOT NULL,
    "central_title" VARCHAR(100),
    "notification_header" VARCHAR(100),
    "colors" JSONB NOT NULL,
    "images" JSONB NOT NULL,
    "fields" JSONB NOT NULL,
    "app_linking" JSONB NOT NULL,
    "barcode" JSONB NOT NULL,
    "locations" JSONB NOT NULL,
    "beacons" JSONB NOT NULL,
    "design_version" INTEGER NOT NULL DEFAULT 1,
    "processing_status" "pass_template_processing_status" NOT NULL DEFAULT 'processing',
    "processing_errors" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "pass_templates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pass_template_versions" (
    "template_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "account_id" UUID NOT NULL,
    "design" JSONB NOT NULL,
    "status" "pass_template_processing_status" NOT NULL DEFAULT 'processing',
    "errors" JSONB,
    "apple_pass" JSONB,
    "google_class" JSONB,
    "job_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "pass_template_versions_pkey" PRIMARY KEY ("template_id","version")
);

-- CreateIndex
CREATE INDEX "pass_templates_account_id_created_at_id_idx" ON "pass_templates"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "pass_templates_account_id_template_type_created_at_id_idx" ON "pass_templates"("account_id", "template_type", "created_at", "id");

-- CreateIndex
CREATE INDEX "pass_template_versions_account_id_idx" ON "pass_template_versions"("account_id");

-- AddForeignKey
ALTER TABLE "pass_templates" ADD CONSTRAINT "pass_templates_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pass_template_versions" ADD CONSTRAINT "pass_template_versions_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "pass_templates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pass_template_versions" ADD CONSTRAINT "pass_template_versions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

