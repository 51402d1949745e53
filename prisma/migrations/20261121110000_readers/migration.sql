-- CreateEnum
CREATE TYPE "reader_type" AS ENUM ('ServiceReader', 'PassentryReader', 'VtapReader');

-- CreateEnum
CREATE TYPE "reader_validation_type" AS ENUM ('internal', 'external');

-- CreateTable
CREATE TABLE "readers" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "entity_id" UUID NOT NULL,
    "public_id" VARCHAR(64) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "reader_type" "reader_type" NOT NULL,
    "password_hash" VARCHAR(255) NOT NULL,
    "logged_in" BOOLEAN NOT NULL DEFAULT false,
    "qr_enabled" BOOLEAN NOT NULL DEFAULT false,
    "mifare_classic_nfc_enabled" BOOLEAN NOT NULL DEFAULT false,
    "scan_enabled" BOOLEAN NOT NULL DEFAULT true,
    "redeem_enabled" BOOLEAN NOT NULL DEFAULT false,
    "add_points_enabled" BOOLEAN NOT NULL DEFAULT false,
    "ndef_tag_scanning_enabled" BOOLEAN NOT NULL DEFAULT false,
    "last_seen_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "readers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reader_configurations" (
    "entity_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "nfc_private_key_encrypted" BYTEA NOT NULL,
    "nfc_public_key" VARCHAR(1024) NOT NULL,
    "google_collector_id" CHAR(8) NOT NULL,
    "google_key_version" INTEGER NOT NULL DEFAULT 1,
    "api_key_encrypted" BYTEA NOT NULL,
    "api_key_hash" CHAR(64) NOT NULL,
    "validation_type" "reader_validation_type" NOT NULL DEFAULT 'internal',
    "external_validation_url" VARCHAR(2048),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "reader_configurations_pkey" PRIMARY KEY ("entity_id")
);

-- CreateIndex
CREATE INDEX "readers_entity_id_idx" ON "readers"("entity_id");

-- CreateIndex
CREATE UNIQUE INDEX "readers_account_id_public_id_key" ON "readers"("account_id", "public_id");

-- CreateIndex
CREATE UNIQUE INDEX "reader_configurations_api_key_hash_key" ON "reader_configurations"("api_key_hash");

-- CreateIndex
CREATE INDEX "reader_configurations_account_id_idx" ON "reader_configurations"("account_id");

-- AddForeignKey
ALTER TABLE "readers" ADD CONSTRAINT "readers_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "readers" ADD CONSTRAINT "readers_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reader_configurations" ADD CONSTRAINT "reader_configurations_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reader_configurations" ADD CONSTRAINT "reader_configurations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

