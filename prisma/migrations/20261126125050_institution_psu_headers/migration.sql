-- AlterTable
ALTER TABLE "institutions" ADD COLUMN     "psu_headers" JSONB;
