-- AlterTable
-- Until when the bank's daily allowance of reads of the account without the user is spent (its 429):
-- nullable, so the previous release, which neither reads nor writes it, runs beside this one.
ALTER TABLE "accounts" ADD COLUMN "daily_limit_until" TIMESTAMPTZ(3);
