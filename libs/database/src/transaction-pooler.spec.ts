import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '#libs/testing';
import { DatabasePool } from './database.pool.js';
import { queryOn } from './sql-statement.js';
import { serverTimeoutProblem } from './transaction-pooler.js';

/**
 * Against the real Postgres, as a pooler would see the pool's traffic: a named statement leaves a prepared
 * statement on its server connection (pg_prepared_statements), which the next transaction, on another server
 * connection, would not find. With DATABASE_POOLER=transaction none is left, whoever names one.
 */
describe('the pool behind a transaction pooler', () => {
  const direct = testConfig();
  const pooled = testConfig({ DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct.database.url });
  const pools: DatabasePool[] = [];
  const poolOf = (config: typeof direct) => {
    const pool = new DatabasePool(config);
    pools.push(pool);
    return pool;
  };
  afterAll(async () => {
    for (const pool of pools) await pool.close();
  });

  /** The statements prepared on the connection after one named statement ran on it. */
  const preparedAfterNamedStatement = (database: DatabasePool) =>
    database.transaction(async (db) => {
      await queryOn(db, { name: 'pooler.probe', text: 'SELECT $1::int AS n', values: [1] });
      const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
      return rows.map((r) => r.name);
    });

  it('sends no named statement (and names them straight to Postgres)', async () => {
    expect(await preparedAfterNamedStatement(poolOf(pooled))).toEqual([]);
    expect(await preparedAfterNamedStatement(poolOf(direct))).toEqual(['pooler.probe']);
  });

  it('sends no startup setting, which PgBouncer would refuse', () => {
    const connecting = (database: DatabasePool) => (database.pool as unknown as { options: object }).options;
    expect(connecting(poolOf(pooled))).not.toHaveProperty('statement_timeout');
    expect(connecting(poolOf(direct))).toHaveProperty('statement_timeout', 30_000);
  });

  it('refuses to start where the server would let a statement run unbounded', async () => {
    // The test server's role has no bound (0): exactly the deployment the check is for.
    await expect(poolOf(pooled).onApplicationBootstrap()).rejects.toThrow(
      /the server's statement_timeout is 0 ms, not the 30000 ms bound.*ALTER ROLE/,
    );
    await expect(poolOf(direct).onApplicationBootstrap()).resolves.toBeUndefined();
    // A server that bounds its sessions (as `ALTER ROLE … SET statement_timeout` does): accepted up to 30 s.
    for (const [setting, fine] of [
      ['10s', true],
      ['30s', true],
      ['31s', false],
    ] as const) {
      const bounded = new pg.Pool({
        connectionString: direct.database.url,
        options: `-c statement_timeout=${setting}`,
      });
      const problem = await serverTimeoutProblem(bounded, pooled.database).finally(() => bounded.end());
      expect(problem === undefined).toBe(fine);
    }
  });
});
