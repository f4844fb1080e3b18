-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "sync_run_id" UUID;
