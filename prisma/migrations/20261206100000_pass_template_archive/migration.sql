-- AlterTable
ALTER TABLE "pass_templates" ADD COLUMN     "archived_at" TIMESTAMPTZ(3);
