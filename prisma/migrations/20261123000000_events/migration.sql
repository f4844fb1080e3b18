-- Events in and out: the outbox relay stream order, endpoint secret rotation and auto-disable,
-- the inbox outcome.

-- A time-ordered uuid (v7) made in SQL, for rows the relay inserts in bulk (Postgres 15 has no uuidv7()).
CREATE FUNCTION "uuid_generate_v7"() RETURNS uuid AS $$
  SELECT encode(
    set_bit(
      set_bit(
        overlay(uuid_send(gen_random_uuid())
          PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
          FROM 1 FOR 6),
        52, 1),
      53, 1),
    'hex')::uuid
$$ LANGUAGE sql VOLATILE;

-- `seq` is taken at insert, so concurrent transactions commit it out of order. The relay, one at a time,
-- numbers committed events in `stream_seq`: a reader that has seen up to N is everything up to N, which
-- is what the SSE Last-Event-ID needs.
ALTER TABLE "merchant_events" ADD COLUMN "stream_seq" BIGINT;
CREATE UNIQUE INDEX "merchant_events_stream_seq_key" ON "merchant_events"("stream_seq");
CREATE INDEX "merchant_events_user_id_stream_seq_idx" ON "merchant_events"("user_id", "stream_seq");
CREATE INDEX "merchant_events_unrelayed_idx" ON "merchant_events"("seq") WHERE "stream_seq" IS NULL;

-- The relay high-water mark: its row lock is what makes one relay run at a time.
CREATE TABLE "outbox_relay_state" (
    "id" INTEGER NOT NULL,
    "last_stream_seq" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_relay_state_pkey" PRIMARY KEY ("id")
);
INSERT INTO "outbox_relay_state" ("id", "last_stream_seq") VALUES (1, 0);

-- Rotation: the previous secret signs alongside the new one until it expires.
ALTER TABLE "event_endpoints" ADD COLUMN "previous_secret_ciphertext" TEXT;
ALTER TABLE "event_endpoints" ADD COLUMN "previous_secret_key_id" VARCHAR(32);
ALTER TABLE "event_endpoints" ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);
-- Auto-disable: failing since the first failure after the last success: why it was disabled.
ALTER TABLE "event_endpoints" ADD COLUMN "failing_since" TIMESTAMPTZ(3);
ALTER TABLE "event_endpoints" ADD COLUMN "disabled_reason" TEXT;

ALTER TABLE "event_deliveries" ALTER COLUMN "id" SET DEFAULT "uuid_generate_v7"();

-- What fan-out did with an inbox row: applied, ignored (a type we do not act on), unmatched (nothing of
-- ours it concerns).
ALTER TABLE "inbound_events" ADD COLUMN "outcome" VARCHAR(32);
