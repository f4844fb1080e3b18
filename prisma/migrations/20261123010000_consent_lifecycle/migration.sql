-- Consent lifecycle: reconciliation with the upstream visits the consents it checked longest ago first.
-- (The expiry warning's stamp, expiring_notified_at, has been in the schema since the first migration.)
ALTER TABLE "consents" ADD COLUMN "reconciled_at" TIMESTAMPTZ(3);
CREATE INDEX "consents_status_reconciled_at_idx" ON "consents"("status", "reconciled_at");
