-- CreateIndex
CREATE INDEX "upstream_calls_merchant_id_at_idx" ON "upstream_calls"("merchant_id", "at");
