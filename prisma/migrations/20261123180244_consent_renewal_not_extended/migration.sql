-- A completed re-authorisation that did not extend the consent's expiry: stamped on the consent (the
-- expiry scan asks the bank no more for it) and announced to the merchant once.
ALTER TYPE "merchant_event_type" ADD VALUE 'consent.reauthorisation_not_extended';

ALTER TABLE "consents" ADD COLUMN "reauthorisation_not_extended_at" TIMESTAMPTZ(3);
