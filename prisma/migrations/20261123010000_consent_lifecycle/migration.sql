-- Consent lifecycle: the expiry warning goes out once (this stamp is its guard), and reconciliation with
-- the upstream visits the consents it checked longest ago first.
ALTER TABLE "consents" ADD COLUMN "expiring_notified_at" TIMESTAMPTZ(3);
ALTER TABLE "consents" ADD COLUMN "reconciled_at" TIMESTAMPTZ(3);
CREATE INDEX "consents_status_reconciled_at_idx" ON "consents"("status", "reconciled_at");
