-- AlterTable
ALTER TABLE "google_wallet_classes" ADD COLUMN     "callback_url" VARCHAR(2048);

-- AlterTable
ALTER TABLE "google_wallet_objects" ADD COLUMN     "saved_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "google_wallet_callback_nonces" (
    "nonce" VARCHAR(255) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "google_wallet_callback_nonces_pkey" PRIMARY KEY ("nonce")
);

-- CreateIndex
CREATE INDEX "google_wallet_callback_nonces_expires_at_idx" ON "google_wallet_callback_nonces"("expires_at");

