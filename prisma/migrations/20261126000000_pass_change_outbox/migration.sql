-- CreateTable
CREATE TABLE "pass_change_outbox" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "pass_id" UUID NOT NULL,
    "push" BOOLEAN NOT NULL,
    "event_type" VARCHAR(40) NOT NULL,
    "subscription_ids" UUID[],
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pass_change_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pass_change_outbox_created_at_idx" ON "pass_change_outbox"("created_at");

-- AddForeignKey
ALTER TABLE "pass_change_outbox" ADD CONSTRAINT "pass_change_outbox_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pass_change_outbox" ADD CONSTRAINT "pass_change_outbox_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

