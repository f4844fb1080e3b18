-- AlterTable
-- Reads of the account without the user present taken on the UTC day beside them, against the bank's
-- daily allowance (UnattendedReadsService): taken before the bank is asked, given back when its answer
-- shows it did not count the read. The previous release neither reads nor writes them.
ALTER TABLE "accounts" ADD COLUMN "unattended_reads_day" DATE,
ADD COLUMN "unattended_reads" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
-- An operator's word on a bank's daily allowance; null: PSD2's four. Not touched by the catalogue refresh.
ALTER TABLE "institutions" ADD COLUMN "unattended_reads_per_day" INTEGER;
