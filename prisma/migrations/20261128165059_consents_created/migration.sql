-- CreateIndex
CREATE INDEX "consents_created_at_idx" ON "consents"("created_at");
