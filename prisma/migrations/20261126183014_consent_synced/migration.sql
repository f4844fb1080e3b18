-- AlterEnum
ALTER TYPE "merchant_event_type" ADD VALUE 'consent.synced';

-- AlterTable
ALTER TABLE "consents" ADD COLUMN     "first_synced_at" TIMESTAMPTZ(3);
