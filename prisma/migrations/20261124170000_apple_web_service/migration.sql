-- CreateEnum
CREATE TYPE "delivery_channel" AS ENUM ('apns', 'googleWallet');

-- AlterTable
ALTER TABLE "batch_deliveries" ADD COLUMN     "devices" INTEGER,
ADD COLUMN     "push_error" VARCHAR(500),
ADD COLUMN     "pushed_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "apple_devices" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "device_library_identifier" VARCHAR(128) NOT NULL,
    "push_token" VARCHAR(200) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "apple_devices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "apple_registrations" (
    "device_id" UUID NOT NULL,
    "pass_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "pass_type_identifier" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "renewed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "apple_registrations_pkey" PRIMARY KEY ("device_id","pass_id")
);

-- CreateTable
CREATE TABLE "apple_device_logs" (
    "id" BIGSERIAL NOT NULL,
    "message" VARCHAR(2000) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "apple_device_logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempts" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "pass_id" UUID NOT NULL,
    "channel" "delivery_channel" NOT NULL,
    "target" VARCHAR(255) NOT NULL,
    "operation" VARCHAR(40) NOT NULL,
    "outcome" VARCHAR(40) NOT NULL,
    "status" INTEGER NOT NULL,
    "reason" VARCHAR(500),
    "job_id" UUID,
    "attempt" INTEGER NOT NULL,
    "batch_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "apple_devices_device_library_identifier_idx" ON "apple_devices"("device_library_identifier");

-- CreateIndex
CREATE UNIQUE INDEX "apple_devices_account_id_device_library_identifier_key" ON "apple_devices"("account_id", "device_library_identifier");

-- CreateIndex
CREATE INDEX "apple_registrations_pass_id_idx" ON "apple_registrations"("pass_id");

-- CreateIndex
CREATE INDEX "apple_registrations_account_id_idx" ON "apple_registrations"("account_id");

-- CreateIndex
CREATE INDEX "apple_device_logs_created_at_idx" ON "apple_device_logs"("created_at");

-- CreateIndex
CREATE INDEX "delivery_attempts_pass_id_created_at_idx" ON "delivery_attempts"("pass_id", "created_at");

-- CreateIndex
CREATE INDEX "delivery_attempts_job_id_idx" ON "delivery_attempts"("job_id");

-- CreateIndex
CREATE INDEX "delivery_attempts_batch_id_idx" ON "delivery_attempts"("batch_id");

-- CreateIndex
CREATE INDEX "delivery_attempts_account_id_created_at_idx" ON "delivery_attempts"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "batch_deliveries_batch_id_pushed_at_idx" ON "batch_deliveries"("batch_id", "pushed_at");

-- AddForeignKey
ALTER TABLE "apple_devices" ADD CONSTRAINT "apple_devices_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "apple_registrations" ADD CONSTRAINT "apple_registrations_device_id_fkey" FOREIGN KEY ("device_id") REFERENCES "apple_devices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "apple_registrations" ADD CONSTRAINT "apple_registrations_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "apple_registrations" ADD CONSTRAINT "apple_registrations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_pass_id_fkey" FOREIGN KEY ("pass_id") REFERENCES "passes"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written (prisma/README.md, "Triggers Prisma cannot express"): every change of a pass moves
-- its updated_at to a later whole second than the previous version's. Last-Modified and
-- If-Modified-Since carry whole seconds (RFC 9110 §5.6.7), and Apple Wallet asks for a pass with
-- If-Modified-Since; two versions within one second would look the same to it, and the device
-- would keep the older one.
CREATE FUNCTION "passes_distinct_update_second"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.updated_at IS DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := GREATEST(NEW.updated_at, date_trunc('second', OLD.updated_at) + interval '1 second');
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "passes_distinct_update_second" BEFORE UPDATE OF "updated_at" ON "passes"
  FOR EACH ROW EXECUTE FUNCTION "passes_distinct_update_second"();
