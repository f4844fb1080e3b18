-- transactions.merchant_id is the tenant's column, not a link of its own: the account (same merchant) erases
-- the rows with it. Its check cost Postgres a tenth of a first sync's COPY.
-- DropForeignKey
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_merchant_id_fkey";
