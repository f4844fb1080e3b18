-- Whether the expiry scan may ask the bank to re-authorise the consent in its last days (which suspends
-- access until the user does it): the merchant's choice at creation. Existing consents keep the old rule.
ALTER TABLE "consents" ADD COLUMN "auto_reauthorise" BOOLEAN NOT NULL DEFAULT true;

-- The user's login ids at a bank that requires PSU headers, sealed as the token is: a renewal there is
-- made with the user present (their own address), and these are what the user cannot type on our link.
ALTER TABLE "consents" ADD COLUMN "psu_ids_ciphertext" TEXT;
ALTER TABLE "consents" ADD COLUMN "psu_ids_key_id" VARCHAR(32);

-- The settle job's second look: redirect callbacks that spent their state but never settled the consent
-- (an answer lost to a database outage). Few rows at any time: the predicate keeps the index small.
CREATE INDEX "consents_callback_spent_idx" ON "consents"("updated_at")
  WHERE "status" = 'AWAITING_AUTHORIZATION' AND "state_nonce" IS NULL AND "flow" = 'REDIRECT';
