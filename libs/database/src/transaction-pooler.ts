import pg from 'pg';
import type { AppConfig } from '#libs/config';

/*
 * Behind a transaction-mode pooler (PgBouncer `pool_mode = transaction`), each transaction, and each
 * statement outside one, may run on a different server connection, and the pooler forwards no startup
 * setting (PgBouncer refuses the connection: "unsupported startup parameter"). So the pool there names no
 * statement (a name is per server connection: the next one says "does not exist", or "already exists")
 * and sends no `statement_timeout`: the bound is the server's own, checked at boot.
 */

/** Every statement of the pool ends within this (57014 after it), so a stuck one cannot hold a connection. */
export const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * A pg client that sends every statement unnamed (parsed and planned each time), whatever name the caller
 * gave: one place for every caller (repositories' declared statements, Prisma, a test's query).
 */
export class UnnamedStatementClient extends pg.Client {
  // pg's overloads all take the query (text, config or submittable) first; only a config carries a name.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [first] = args as [unknown];
    if (typeof first === 'object' && first !== null && 'name' in first && !('submit' in first)) {
      const { name: _name, ...unnamed } = first as pg.QueryConfig;
      args[0] = unnamed;
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
    return (super.query as (...a: unknown[]) => unknown)(...args);
  }
}

/** How the pool connects for `config`: through a transaction pooler, or straight to Postgres. */
export const poolConnection = (database: AppConfig['database']): Partial<pg.PoolConfig> =>
  database.pooler === 'transaction'
    ? { Client: UnnamedStatementClient }
    : { statement_timeout: STATEMENT_TIMEOUT_MS };

/**
 * Behind a transaction pooler, the statement bound must come from the server (a role or database setting,
 * or the pooler's `connect_query`): undefined when it does, else what is wrong. Straight to Postgres the
 * pool sets it itself. A server it cannot reach says nothing yet: the health checks report that.
 */
export async function serverTimeoutProblem(
  pool: pg.Pool,
  database: AppConfig['database'],
): Promise<string | undefined> {
  if (database.pooler !== 'transaction') return undefined;
  const { rows } = await pool.query<{ ms: string }>(
    `SELECT setting AS ms FROM pg_settings WHERE name = 'statement_timeout'`,
  );
  const ms = Number(rows[0]?.ms);
  if (ms > 0 && ms <= STATEMENT_TIMEOUT_MS) return undefined;
  return (
    `DATABASE_POOLER=transaction: the server's statement_timeout is ${ms} ms, not the ${STATEMENT_TIMEOUT_MS} ms ` +
    `bound (0 is none). Set it for the pooled role: ALTER ROLE <role> IN DATABASE <database> SET ` +
    `statement_timeout = '30s' (docs/operations.md#behind-pgbouncer)`
  );
}
