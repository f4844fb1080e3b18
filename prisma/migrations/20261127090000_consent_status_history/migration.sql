-- CreateTable
CREATE TABLE "consent_status_changes" (
    "id" BIGSERIAL NOT NULL,
    "consent_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "from_status" VARCHAR(64),
    "to_status" VARCHAR(64) NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "consent_status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "consent_status_changes_consent_id_id_idx" ON "consent_status_changes"("consent_id", "id");

-- AddForeignKey
ALTER TABLE "consent_status_changes" ADD CONSTRAINT "consent_status_changes_consent_id_fkey" FOREIGN KEY ("consent_id") REFERENCES "consents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every status a consent takes is recorded here by the database itself, whoever writes it (the state
-- repository's transitions, a raw statement, a future writer): no code path can change a status and leave
-- no record. A write of the status it already has records nothing. Two writes to one consent are
-- serialised by its row lock, so within a consent the ids are in the order the changes were made.
CREATE FUNCTION "consent_status_recorded"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "consent_status_changes" ("consent_id", "merchant_id", "from_status", "to_status", "changed_at")
    VALUES (NEW."id", NEW."merchant_id", NULL, NEW."status", clock_timestamp());
  ELSE
    INSERT INTO "consent_status_changes" ("consent_id", "merchant_id", "from_status", "to_status", "changed_at")
    VALUES (NEW."id", NEW."merchant_id", OLD."status", NEW."status", clock_timestamp());
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "consents_status_created" AFTER INSERT ON "consents"
  FOR EACH ROW EXECUTE FUNCTION "consent_status_recorded"();

CREATE TRIGGER "consents_status_changed" AFTER UPDATE OF "status" ON "consents"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION "consent_status_recorded"();

-- Consents from before the history was kept: only their current status is known, dated by their last
-- change (updated_at), the latest moment it can have been taken.
INSERT INTO "consent_status_changes" ("consent_id", "merchant_id", "from_status", "to_status", "changed_at")
SELECT "id", "merchant_id", NULL, "status", "updated_at" FROM "consents" ORDER BY "id";
