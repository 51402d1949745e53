-- CreateTable
CREATE TABLE "google_configurations" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "issuer_id" VARCHAR(32) NOT NULL,
    "client_email" VARCHAR(320) NOT NULL,
    "private_key_id" VARCHAR(100),
    "service_account_key_encrypted" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "google_configurations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "google_wallet_classes" (
    "template_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "class_id" VARCHAR(255) NOT NULL,
    "class_type" VARCHAR(40) NOT NULL,
    "version" INTEGER NOT NULL,
    "synced_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "google_wallet_classes_pkey" PRIMARY KEY ("template_id")
);

-- CreateTable
CREATE TABLE "google_wallet_objects" (
    "pass_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "object_id" VARCHAR(255) NOT NULL,
    "object_type" VARCHAR(40) NOT NULL,
    "inserted_at" TIMESTAMPTZ(3) NOT NULL,
    "synced_at" TIMESTAMPTZ(3) NOT NULL,
    "last_message" VARCHAR(350),
    "notified_at" TIMESTAMPTZ(3)[],

    CONSTRAINT "google_wallet_objects_pkey" PRIMARY KEY ("pass_id")
);

-- CreateTable
CREATE TABLE "google_rate_limits" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL,
    "expire" TIMESTAMPTZ(3),

    CONSTRAINT "google_rate_limits_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "google_configurations_account_id_key" ON "google_configurations"("account_id");

-- CreateIndex
CREATE INDEX "google_wallet_classes_account_id_idx" ON "google_wallet_classes"("account_id");

-- CreateIndex
CREATE INDEX "google_wallet_objects_account_id_idx" ON "google_wallet_objects"("account_id");

-- AddForeignKey
ALTER TABLE "google_configurations" ADD CONSTRAINT "google_configurations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "google_wallet_classes" ADD CONSTRAINT "google_wallet_classes_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "pass_templates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "google_wallet_classes" ADD CONSTRAINT "google_wallet_classes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "google_wallet_objects" ADD CONSTRAINT "google_wallet_objects_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "google_wallet_objects" ADD CONSTRAINT "google_wallet_objects_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

