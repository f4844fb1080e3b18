-- AlterTable
ALTER TABLE "inbound_events" ADD COLUMN     "trace_context" TEXT;

-- AlterTable
ALTER TABLE "merchant_events" ADD COLUMN     "trace_context" TEXT;
