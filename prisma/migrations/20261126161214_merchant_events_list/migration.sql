-- CreateIndex
CREATE INDEX "merchant_events_merchant_id_stream_seq_idx" ON "merchant_events"("merchant_id", "stream_seq");
