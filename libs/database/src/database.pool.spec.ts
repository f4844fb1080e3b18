import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '#libs/testing';
import { DatabasePool } from './database.pool.js';

/**
 * Against the real Postgres: a connection terminated by the server (57P01, as a restart or failover
 * sends) while the pool has it checked out fails that work, and only that work; the process lives on.
 */
describe('database pool: a connection the server drops', () => {
  const config = testConfig();
  const database = new DatabasePool(config);
  const admin = new pg.Client({ connectionString: config.database.url });

  afterAll(async () => {
    await admin.end();
    await database.close();
  });

  it('fails the transaction that held it, then serves the next one on a fresh connection', async () => {
    await admin.connect();
    const failed = database.transaction(async (db) => {
      const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Checked out when the server ends it. No listener of the test's own: only the pool's may keep the
      // process alive when the client emits 'error'.
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      for (const deadline = Date.now() + 5_000; Date.now() < deadline;) {
        await db.query('SELECT 1');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return 'the connection outlived its termination';
    });
    await expect(failed).rejects.toThrow();
    expect((await database.rows<{ one: number }>({ text: 'SELECT 1 AS one', values: [] }))[0].one).toBe(1);
  });
});
