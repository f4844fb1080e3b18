-- AlterTable
ALTER TABLE "merchant_events" ADD COLUMN     "request_id" TEXT;
