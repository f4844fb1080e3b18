-- When an account's syncs started failing: a failed account is retried after as long again as it has
-- been failing (minutes at first, the interval at most), and the API says since when.
ALTER TABLE "accounts" ADD COLUMN "sync_failing_since" TIMESTAMPTZ(3);

-- A run between two attempts shows when the queue tries again (its error columns hold the last one's).
ALTER TABLE "sync_runs" ADD COLUMN "next_attempt_at" TIMESTAMPTZ(3);
