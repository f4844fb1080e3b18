-- Each event carries its user's reference as it was when the event was recorded (issue 59), so events,
-- webhooks and the lookup name a customer as the merchant does; the same bytes on every redelivery.
-- AlterTable
ALTER TABLE "merchant_events" ADD COLUMN     "user_reference" VARCHAR(255);

-- Events recorded before: their user's reference now (a reference rarely changes).
UPDATE "merchant_events" e SET "user_reference" = u."reference" FROM "users" u WHERE u."id" = e."user_id";
