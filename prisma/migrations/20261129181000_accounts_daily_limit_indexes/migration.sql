-- CreateIndex
-- The worker's daily-allowance gauge: the accounts a bank holds, per institution, from this small partial
-- index alone (only accounts ever held; a successful sync clears the column), then how many of the same
-- institution sync, from the second (partial on the accounts that sync), only for an institution holding any.
CREATE INDEX "accounts_institution_id_daily_limit_until_idx" ON "accounts"("institution_id", "daily_limit_until") WHERE "daily_limit_until" IS NOT NULL;
CREATE INDEX "accounts_institution_id_idx" ON "accounts"("institution_id") WHERE "next_sync_at" IS NOT NULL;
