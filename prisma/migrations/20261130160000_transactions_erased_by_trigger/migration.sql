-- Expand, for dropping the foreign key transactions_account_id_fkey in a later release (docs/upgrades.md):
-- its check runs once for every row a first sync copies in, an eighth of Postgres's CPU in the sync bench.
-- Page writers take the account's key-share lock once instead (TransactionRepository.lockAccount), so no
-- row is written for an account being erased, and this trigger erases an account's transactions with it,
-- as the cascade does, also when the account goes with its user, consent or merchant. While the foreign
-- key is there its cascade runs first and this finds nothing left.
CREATE FUNCTION bff_erase_accounts_transactions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM transactions t USING gone g WHERE t.account_id = g.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER accounts_erase_transactions AFTER DELETE ON accounts
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION bff_erase_accounts_transactions();
