-- CreateIndex
CREATE INDEX "event_deliveries_endpoint_id_status_created_at_idx" ON "event_deliveries"("endpoint_id", "status", "created_at");
