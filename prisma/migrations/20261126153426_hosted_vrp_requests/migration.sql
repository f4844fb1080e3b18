-- AlterEnum
ALTER TYPE "consent_kind" ADD VALUE 'VRP_COMMERCIAL';

-- CreateTable
CREATE TABLE "hosted_vrp_requests" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "institution_id" VARCHAR(255) NOT NULL,
    "control_parameters" JSONB NOT NULL,
    "initiation_details" JSONB NOT NULL,
    "consent_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hosted_vrp_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "hosted_vrp_requests_consent_id_key" ON "hosted_vrp_requests"("consent_id");

-- CreateIndex
CREATE INDEX "hosted_vrp_requests_merchant_id_user_id_idx" ON "hosted_vrp_requests"("merchant_id", "user_id");

-- AddForeignKey
ALTER TABLE "hosted_vrp_requests" ADD CONSTRAINT "hosted_vrp_requests_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hosted_vrp_requests" ADD CONSTRAINT "hosted_vrp_requests_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hosted_vrp_requests" ADD CONSTRAINT "hosted_vrp_requests_consent_id_fkey" FOREIGN KEY ("consent_id") REFERENCES "consents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
