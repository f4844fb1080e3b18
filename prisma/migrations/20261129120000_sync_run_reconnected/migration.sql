-- AlterTable
-- A column beside the trigger, not a new "sync_trigger" value: the previous release reads these runs as
-- INITIAL first syncs (consent.synced, conversion) and ignores the column (docs/upgrades.md).
ALTER TABLE "sync_runs" ADD COLUMN "reconnected" BOOLEAN NOT NULL DEFAULT false;
