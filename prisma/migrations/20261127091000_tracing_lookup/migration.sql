-- GET /v1/lookup: a merchant's failed runs by the upstream's tracing id, its events by the request
-- that recorded them and by the run they name. Partial: most runs carry no upstream error, and only the
-- events of a sync run name one.

-- CreateIndex
CREATE INDEX "sync_runs_merchant_id_error_tracing_id_idx" ON "sync_runs"("merchant_id", ("error_details" ->> 'tracingId')) WHERE "error_details" IS NOT NULL;

-- CreateIndex
CREATE INDEX "merchant_events_merchant_id_request_id_idx" ON "merchant_events"("merchant_id", "request_id") WHERE "request_id" IS NOT NULL;

-- CreateIndex
CREATE INDEX "merchant_events_merchant_id_sync_id_idx" ON "merchant_events"("merchant_id", ("data" ->> 'syncId')) WHERE ("data" ->> 'syncId') IS NOT NULL;
