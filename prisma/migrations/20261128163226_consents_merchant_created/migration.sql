-- CreateIndex
CREATE INDEX "consents_merchant_id_created_at_idx" ON "consents"("merchant_id", "created_at");
