-- A first sync's appended page enters the change feed as one entry (a batch: the account's transactions
-- in an id range that have no change row of their own) instead of one change row per transaction.
-- CreateTable
CREATE TABLE "transaction_feed_batches" (
    "user_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "first_id" UUID NOT NULL,
    "last_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transaction_feed_batches_pkey" PRIMARY KEY ("user_id","seq")
);

-- CreateIndex
CREATE INDEX "transaction_feed_batches_account_id_seq_idx" ON "transaction_feed_batches"("account_id", "seq");

-- AddForeignKey
ALTER TABLE "transaction_feed_batches" ADD CONSTRAINT "transaction_feed_batches_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
