-- VRP payments stored before they kept their payee carry `{}`: they take their consent's payee (the bank
-- pays no other), once, so the payment view reads the payment's own column.
UPDATE "payments" p
SET "payee" = c."vrp_initiation_details"->'payee'
FROM "consents" c
WHERE p."consent_id" = c."id"
  AND p."kind" = 'VRP'
  AND NOT p."payee" ? 'name'
  AND jsonb_typeof(c."vrp_initiation_details"->'payee') = 'object';
