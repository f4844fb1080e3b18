-- The retention sweep reads only tombstones (`removed`): an index of them alone, so the change written
-- for every stored transaction (a first sync writes thousands) does not also enter this index.
DROP INDEX "transaction_changes_removed_changed_at_idx";
CREATE INDEX "transaction_changes_removed_changed_at_idx" ON "transaction_changes"("removed", "changed_at")
  WHERE "removed";
