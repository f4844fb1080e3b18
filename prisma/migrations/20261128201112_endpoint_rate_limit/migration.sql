-- AlterTable
ALTER TABLE "event_endpoints" ADD COLUMN     "rate_limit" INTEGER;
