-- Every change to what the page-view reads show (users, accounts, balances) notifies its merchant's id on
-- `bff_read_cache` at commit, whoever makes it: each api process listens and drops what it keeps of that
-- merchant (ReadCache). Identical notifications of one transaction reach listeners once.
CREATE FUNCTION bff_read_cache_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('bff_read_cache', OLD.merchant_id::text);
  ELSE
    PERFORM pg_notify('bff_read_cache', NEW.merchant_id::text);
    IF TG_OP = 'UPDATE' AND OLD.merchant_id <> NEW.merchant_id THEN
      PERFORM pg_notify('bff_read_cache', OLD.merchant_id::text);
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER users_read_cache AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION bff_read_cache_notify();

CREATE TRIGGER account_balances_read_cache AFTER INSERT OR UPDATE OR DELETE ON account_balances
  FOR EACH ROW EXECUTE FUNCTION bff_read_cache_notify();

-- Any change but one to `transactions_version` alone, which a sync moves on with each page it writes: that
-- one notifies `merchant:account` (below), which drops only the account's kept transactions version.
CREATE TRIGGER accounts_read_cache AFTER INSERT OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION bff_read_cache_notify();
CREATE TRIGGER accounts_read_cache_update AFTER UPDATE ON accounts FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'transactions_version') IS DISTINCT FROM (to_jsonb(NEW) - 'transactions_version'))
  EXECUTE FUNCTION bff_read_cache_notify();

CREATE FUNCTION bff_read_cache_notify_transactions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('bff_read_cache', NEW.merchant_id::text || ':' || NEW.id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER accounts_read_cache_transactions AFTER UPDATE ON accounts FOR EACH ROW
  WHEN (OLD.transactions_version IS DISTINCT FROM NEW.transactions_version)
  EXECUTE FUNCTION bff_read_cache_notify_transactions();
