-- A fencing token: each claim of a run increments it, and every write of the run names the claim it
-- holds, so a worker that lost its run to another (its job stalled and was taken over) can write nothing.
ALTER TABLE "sync_runs" ADD COLUMN "claim" INTEGER NOT NULL DEFAULT 0;
