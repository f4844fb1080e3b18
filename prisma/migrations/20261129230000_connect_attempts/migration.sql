-- CreateTable
-- The connect funnel: one row per attempt to connect a bank in <bff-connect>, from the steps it reports (ConnectFunnelRepository).
-- The previous release neither reads nor writes it.
CREATE TABLE "connect_attempts" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_report_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "institution_id" VARCHAR(128),
    "consent_id" UUID,
    "searched" BOOLEAN NOT NULL DEFAULT false,
    "chose" BOOLEAN NOT NULL DEFAULT false,
    "sent_to_bank" BOOLEAN NOT NULL DEFAULT false,
    "returned" BOOLEAN NOT NULL DEFAULT false,
    "outcome" VARCHAR(16),
    "error_step" VARCHAR(16),
    "error_reason" VARCHAR(64),

    CONSTRAINT "connect_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "connect_attempts_merchant_id_opened_at_idx" ON "connect_attempts"("merchant_id", "opened_at");

-- CreateIndex
CREATE INDEX "connect_attempts_consent_id_idx" ON "connect_attempts"("consent_id");

-- CreateIndex
CREATE INDEX "connect_attempts_opened_at_idx" ON "connect_attempts"("opened_at");

-- AddForeignKey
ALTER TABLE "connect_attempts" ADD CONSTRAINT "connect_attempts_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
