-- CreateTable
CREATE TABLE "upstream_calls" (
    "id" BIGSERIAL NOT NULL,
    "merchant_id" UUID NOT NULL,
    "consent_id" UUID,
    "sync_run_id" UUID,
    "payment_id" UUID,
    "operation" VARCHAR(64) NOT NULL,
    "institution_id" VARCHAR(255),
    "status" INTEGER,
    "error_code" VARCHAR(64),
    "duration_ms" INTEGER NOT NULL,
    "attempt" INTEGER NOT NULL,
    "tracing_id" VARCHAR(255),
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "upstream_calls_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "upstream_calls_sync_run_id_id_idx" ON "upstream_calls"("sync_run_id", "id");

-- CreateIndex
CREATE INDEX "upstream_calls_consent_id_id_idx" ON "upstream_calls"("consent_id", "id");

-- CreateIndex
CREATE INDEX "upstream_calls_payment_id_id_idx" ON "upstream_calls"("payment_id", "id");

-- CreateIndex
CREATE INDEX "upstream_calls_merchant_id_tracing_id_idx" ON "upstream_calls"("merchant_id", "tracing_id");

-- CreateIndex
CREATE INDEX "upstream_calls_at_idx" ON "upstream_calls"("at");

-- AddForeignKey
ALTER TABLE "upstream_calls" ADD CONSTRAINT "upstream_calls_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
