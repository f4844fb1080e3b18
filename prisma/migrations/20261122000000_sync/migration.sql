-- Background sync: removals are counted, and every run records the window it read.
ALTER TABLE "sync_runs" ADD COLUMN "removed" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "sync_runs" ADD COLUMN "window_from" TIMESTAMPTZ(3);
ALTER TABLE "sync_runs" ADD COLUMN "window_before" TIMESTAMPTZ(3);
