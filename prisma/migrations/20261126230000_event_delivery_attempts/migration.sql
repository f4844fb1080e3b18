-- CreateTable
CREATE TABLE "event_delivery_attempts" (
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "merchant_id" UUID NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "request_url" TEXT NOT NULL,
    "request_headers" JSONB NOT NULL,
    "request_body" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_content_type" TEXT,
    "response_body" TEXT,
    "response_body_truncated" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,

    CONSTRAINT "event_delivery_attempts_pkey" PRIMARY KEY ("delivery_id","attempt")
);

-- AddForeignKey
ALTER TABLE "event_delivery_attempts" ADD CONSTRAINT "event_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "event_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
