-- DropIndex
DROP INDEX "consents_status_expires_at_idx";

-- CreateIndex
CREATE INDEX "consents_status_kind_expires_at_id_idx" ON "consents"("status", "kind", "expires_at", "id");
