-- Retention: the highest stream position removed, so a stream resumed from before it answers 410.
ALTER TABLE "outbox_relay_state" ADD COLUMN "pruned_through_stream_seq" BIGINT NOT NULL DEFAULT 0;
