-- A change counter of each account's stored transactions, moved on by every sync write that changes one:
-- a read that finds the same number may serve the page it read before, in any api process.
ALTER TABLE "accounts" ADD COLUMN "transactions_version" BIGINT NOT NULL DEFAULT 0;
