-- CreateIndex
CREATE INDEX "sync_runs_account_id_id_idx" ON "sync_runs"("account_id", "id" DESC);
