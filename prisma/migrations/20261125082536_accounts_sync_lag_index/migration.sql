-- CreateIndex
-- The worker's sync lag histogram counts per bucket from this index alone (an index-only scan): partial,
-- on the accounts that sync (stopped and closed ones have no next_sync_at), with the merchant so that a
-- disabled merchant's accounts are left out without reading the table.
CREATE INDEX "accounts_last_synced_at_merchant_id_idx" ON "accounts"("last_synced_at", "merchant_id") WHERE "next_sync_at" IS NOT NULL;
