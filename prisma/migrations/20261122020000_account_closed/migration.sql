-- An account the upstream no longer lists under its consent is closed: kept, with its data, never synced.
ALTER TABLE "accounts" ADD COLUMN "closed_at" TIMESTAMPTZ(3);
