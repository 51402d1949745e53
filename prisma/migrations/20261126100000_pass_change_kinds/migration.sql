-- AlterTable
ALTER TABLE "pass_change_outbox" ADD COLUMN     "entity_id" UUID,
ALTER COLUMN "event_type" DROP NOT NULL;
