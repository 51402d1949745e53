-- CreateEnum
CREATE TYPE "WebhookScopeType" AS ENUM ('organisation', 'entity');

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'delivered', 'failed');

-- CreateTable
CREATE TABLE "webhook_subscriptions" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "scope_type" "WebhookScopeType" NOT NULL,
    "entity_id" UUID,
    "scope_name" VARCHAR(64) NOT NULL,
    "url" VARCHAR(2048) NOT NULL,
    "secret_encrypted" BYTEA NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "subscribed_events" TEXT[],
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "disabled_reason" VARCHAR(500),
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_events" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "event_type" VARCHAR(40) NOT NULL,
    "payload" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "subscription_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "ordering_key" VARCHAR(80) NOT NULL,
    "sequence" BIGSERIAL NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery_attempts" (
    "id" BIGSERIAL NOT NULL,
    "subscription_id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "request_id" UUID NOT NULL,
    "outcome" VARCHAR(20) NOT NULL,
    "status" INTEGER NOT NULL,
    "response_snippet" VARCHAR(1024),
    "error" VARCHAR(500),
    "duration_ms" INTEGER NOT NULL,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_subscriptions_account_id_created_at_id_idx" ON "webhook_subscriptions"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_subscriptions_entity_id_idx" ON "webhook_subscriptions"("entity_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_subscriptions_account_id_scope_type_scope_name_url_key" ON "webhook_subscriptions"("account_id", "scope_type", "scope_name", "url");

-- CreateIndex
CREATE INDEX "webhook_events_account_id_occurred_at_idx" ON "webhook_events"("account_id", "occurred_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_subscription_id_ordering_key_status_sequ_idx" ON "webhook_deliveries"("subscription_id", "ordering_key", "status", "sequence");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_subscription_id_idx" ON "webhook_deliveries"("status", "subscription_id");

-- CreateIndex
CREATE INDEX "webhook_delivery_attempts_subscription_id_created_at_idx" ON "webhook_delivery_attempts"("subscription_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_delivery_attempts_delivery_id_idx" ON "webhook_delivery_attempts"("delivery_id");

-- AddForeignKey
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

