-- AlterTable
ALTER TABLE "pass_templates" ADD COLUMN     "apple_pass_type_identifier" VARCHAR(255);

-- AlterTable
ALTER TABLE "passes" ADD COLUMN     "apple_authentication_token" BYTEA;

-- CreateTable
CREATE TABLE "apple_configurations" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "pass_type_identifier" VARCHAR(255) NOT NULL,
    "team_identifier" VARCHAR(10) NOT NULL,
    "organization_name" VARCHAR(200) NOT NULL,
    "certificate_pem" TEXT NOT NULL,
    "private_key_encrypted" BYTEA NOT NULL,
    "wwdr_certificate_pem" TEXT NOT NULL,
    "certificate_fingerprint" CHAR(64) NOT NULL,
    "certificate_not_after" TIMESTAMPTZ(3) NOT NULL,
    "wwdr_is_apple_g4" BOOLEAN NOT NULL,
    "push_error" VARCHAR(500),
    "push_error_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "apple_configurations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pass_template_images" (
    "template_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "account_id" UUID NOT NULL,
    "name" VARCHAR(40) NOT NULL,
    "png" BYTEA NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,

    CONSTRAINT "pass_template_images_pkey" PRIMARY KEY ("template_id","version","name")
);

-- CreateIndex
CREATE INDEX "apple_configurations_account_id_created_at_idx" ON "apple_configurations"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "apple_configurations_account_id_pass_type_identifier_key" ON "apple_configurations"("account_id", "pass_type_identifier");

-- CreateIndex
CREATE INDEX "pass_template_images_account_id_idx" ON "pass_template_images"("account_id");

-- AddForeignKey
ALTER TABLE "apple_configurations" ADD CONSTRAINT "apple_configurations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pass_template_images" ADD CONSTRAINT "pass_template_images_template_id_version_fkey" FOREIGN KEY ("template_id", "version") REFERENCES "pass_template_versions"("template_id", "version") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pass_template_images" ADD CONSTRAINT "pass_template_images_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

