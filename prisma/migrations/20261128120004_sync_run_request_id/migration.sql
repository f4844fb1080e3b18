-- The tracing id of the request that opened a sync run, so GET /v1/lookup finds the run by the id the
-- api answered POST .../sync with (issue 59).
-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "request_id" VARCHAR(255);

-- CreateIndex
CREATE INDEX "sync_runs_merchant_id_request_id_idx" ON "sync_runs"("merchant_id", "request_id");
