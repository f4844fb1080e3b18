-- CreateTable
CREATE TABLE "audit_entries" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_kind" VARCHAR(16) NOT NULL,
    "actor_key_id" UUID,
    "merchant_id" UUID,
    "action" VARCHAR(64) NOT NULL,
    "resource_type" VARCHAR(32) NOT NULL,
    "resource_id" VARCHAR(255),
    "fields" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "source_ip" VARCHAR(64) NOT NULL,
    "tracing_id" VARCHAR(255) NOT NULL,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_entries_seq_key" ON "audit_entries"("seq");

-- CreateIndex
CREATE INDEX "audit_entries_merchant_id_seq_idx" ON "audit_entries"("merchant_id", "seq");

-- CreateIndex
CREATE INDEX "audit_entries_action_seq_idx" ON "audit_entries"("action", "seq");

-- CreateIndex
CREATE INDEX "audit_entries_occurred_at_idx" ON "audit_entries"("occurred_at");

-- Append-only: no row is ever changed, and only the retention sweep removes rows (it sets
-- bff.audit_retention for its own transaction). TRUNCATE, an owner's tool, is left to the owner.
CREATE FUNCTION "audit_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    RAISE EXCEPTION 'audit_entries is append-only: an entry is never changed';
  END IF;
  IF current_setting('bff.audit_retention', true) IS DISTINCT FROM 'on' THEN
    RAISE EXCEPTION 'audit_entries is append-only: only the retention sweep removes entries';
  END IF;
  RETURN OLD;
END $$;

CREATE TRIGGER "audit_entries_append_only" BEFORE UPDATE OR DELETE ON "audit_entries"
  FOR EACH ROW EXECUTE FUNCTION "audit_entries_append_only"();
