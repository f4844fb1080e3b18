import { AsyncResource } from 'node:async_hooks';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { SqlStatement } from './sql-statement.js';
import { poolConnection, serverTimeoutProblem } from './transaction-pooler.js';

/**
 * A `timestamptz(3)` column as the ISO text `Date.prototype.toISOString` writes (`2026-11-22T15:01:38.020Z`):
 * hot reads return it as is, instead of parsing a Date per value only to print it again.
 */
export const isoText = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The process's one node-postgres pool, shared by Prisma (through its driver adapter) and by the
 * repositories' hand-written SQL on hot paths, so both count against one `DATABASE_POOL_MAX`.
 * Only repositories use it. `numeric` columns arrive as strings (pg's default), so money is never a
 * float on the way out either.
 */
@Injectable()
export class DatabasePool implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DatabasePool.name);
  readonly pool: pg.Pool;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.pool = new pg.Pool({
      connectionString: config.database.url,
      max: config.database.poolMax,
      // Without these a stalled database hangs requests (and health probes) forever.
      connectionTimeoutMillis: 5_000,
      // The statement bound, or no named statements and the server's bound behind a transaction pooler.
      ...poolConnection(config.database),
    });
    // A connection Postgres drops (a restart, a failover, `pg_terminate_backend`: 57P01) makes its client
    // emit 'error'. The pool listens only while the client is idle; one emitted while it is checked out,
    // with no listener, would crash the process. Every client gets a listener for its whole life: its
    // pending query fails on its own, and the pool discards a client that cannot query any more.
    // Bound here, outside any request: a socket's events run in the context of whatever opened it, and
    // the loss would otherwise be logged under that long-gone request's or job's id.
    const lost = AsyncResource.bind((error: Error) =>
      this.logger.warn(`database connection lost: ${error.message}`),
    );
    this.pool.on('connect', (client) => client.on('error', lost));
    // The pool's own event for an idle client: the client's listener above has already said it.
    this.pool.on('error', () => undefined);
  }

  /** Refuses to run behind a transaction pooler whose server would let a statement run unbounded. */
  async onApplicationBootstrap(): Promise<void> {
    const problem = await serverTimeoutProblem(this.pool, this.config.database).catch((error: Error) => {
      this.logger.warn(`statement bound not checked: ${error.message}`);
      return undefined;
    });
    if (problem) throw new Error(problem);
  }

  async rows<R extends object>(statement: SqlStatement<R>): Promise<R[]> {
    return (await this.pool.query<R>(statement)).rows;
  }

  /**
   * `fn` inside one transaction on one connection: committed when it returns, rolled back when it throws.
   * A connection that cannot even roll back is destroyed rather than handed to the next caller.
   */
  async transaction<T>(fn: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * At application shutdown, not module destroy: Nest destroys modules before it stops the HTTP server
   * and before the worker's jobs are handed back, and a pool ended then would fail the requests and jobs
   * still finishing.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  /**
   * Ends the pool within `timeoutMs`. pg waits for every checked-out client to be released and for
   * pending connects (up to their 5 s timeout while Postgres is down); past the bound the process exits
   * with its sockets, which Postgres treats as a client gone.
   */
  async close(timeoutMs = 2_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const ended = this.pool.end().then(
      () => true,
      () => true,
    );
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const done = await Promise.race([ended, timedOut]);
    clearTimeout(timer);
    if (!done) {
      this.logger.warn(
        `database pool did not end within ${timeoutMs} ms (${this.pool.totalCount} connections); left to exit`,
      );
    }
  }
}
