-- CreateTable
CREATE TABLE "transaction_feeds" (
    "user_id" UUID NOT NULL,
    "last_seq" BIGINT NOT NULL DEFAULT 0,
    "pruned_through" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "transaction_feeds_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "transaction_changes" (
    "transaction_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "record_id" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "added_seq" BIGINT NOT NULL,
    "removed" BOOLEAN NOT NULL DEFAULT false,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transaction_changes_pkey" PRIMARY KEY ("transaction_id")
);

-- CreateIndex
CREATE INDEX "transaction_changes_account_id_seq_idx" ON "transaction_changes"("account_id", "seq");

-- CreateIndex
CREATE INDEX "transaction_changes_removed_changed_at_idx" ON "transaction_changes"("removed", "changed_at");

-- CreateIndex
CREATE UNIQUE INDEX "transaction_changes_user_id_seq_key" ON "transaction_changes"("user_id", "seq");

-- AddForeignKey
ALTER TABLE "transaction_feeds" ADD CONSTRAINT "transaction_feeds_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction_changes" ADD CONSTRAINT "transaction_changes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every stored transaction enters its user's feed as added, in creation order (uuid v7 ids).
INSERT INTO "transaction_changes" ("transaction_id", "merchant_id", "user_id", "account_id", "record_id", "seq", "added_seq")
SELECT t."id", t."merchant_id", a."user_id", t."account_id", t."raw"->>'id',
    row_number() OVER (PARTITION BY a."user_id" ORDER BY t."id"),
    row_number() OVER (PARTITION BY a."user_id" ORDER BY t."id")
FROM "transactions" t JOIN "accounts" a ON a."id" = t."account_id";

INSERT INTO "transaction_feeds" ("user_id", "last_seq")
SELECT "user_id", max("seq") FROM "transaction_changes" GROUP BY "user_id";
