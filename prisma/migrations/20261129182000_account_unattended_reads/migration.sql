-- AlterTable
-- Reads of the account the bank answered without the user present, on the UTC day named beside them:
-- what the bank counts against its daily allowance. The previous release neither reads nor writes them.
ALTER TABLE "accounts" ADD COLUMN "unattended_reads_day" DATE,
ADD COLUMN "unattended_reads" INTEGER NOT NULL DEFAULT 0;
