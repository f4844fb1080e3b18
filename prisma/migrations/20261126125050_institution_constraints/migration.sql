-- AlterTable
ALTER TABLE "institutions" ADD COLUMN     "constraints" JSONB;
