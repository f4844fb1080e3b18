-- Payments parked for a person (PARKED_PAYMENT in libs/domain/payments/src/payment-status.ts): the
-- operator's list and the metrics read only these few rows, never the table of final payments.
CREATE INDEX "payments_parked_idx" ON "payments"("id")
  WHERE "next_status_check_at" IS NULL
    AND "status" NOT IN ('COMPLETED', 'FAILED', 'DECLINED', 'REJECTED', 'EXPIRED', 'CANCELLED');
