import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER, Metrics } from '#libs/observability';
import { REDIS, type RedisClient } from '#libs/redis';
import { DatabasePool } from './database.pool.js';
import { type SqlStatement, sqlStatement } from './sql-statement.js';
import { poolConnection } from './transaction-pooler.js';

/** How often each process asks both servers how far they are: a read waits for none of it. */
const POLL_MS = 200;
/**
 * A replica that has not replayed what the primary had written this long ago is behind: every read goes to
 * the primary until it catches up. Also how long a merchant's write fence is kept: past it, the replica
 * has either replayed the write or is behind.
 */
export const REPLICA_MAX_LAG_MS = 5_000;

/** A WAL position (`16/B374D848`) as a number: exact below 2^53 bytes of WAL, some 9 PB. */
export const lsnNumber = (lsn: string): number => {
  const [high, low] = lsn.split('/');
  return parseInt(high ?? '0', 16) * 2 ** 32 + parseInt(low ?? '0', 16);
};

/**
 * The end of the last record before `inserted`: at the start of a WAL page the insert position points past
 * the page's header (24 bytes, 40 on a segment's first page), where no record ends, and a replica that has
 * replayed everything stands before it. No record ends at those offsets (the smallest is 24 bytes, after
 * the header).
 */
export const afterInsert = (inserted: number, block: number): number => {
  const offset = inserted % block;
  return offset === 24 || offset === 40 ? inserted - offset : inserted;
};

/** Raises the merchant's fence to the write's position, never lowers it (writes end in any order). */
const RAISE_FENCE = `
  local current = tonumber(redis.call('GET', KEYS[1]) or '0')
  if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  return 1`;

export type ReadSource = 'replica' | 'primary';

export const REPLICA_SQL = {
  /** How far the primary has written out: what the replica can have been sent (its lag is measured on it). */
  written: sqlStatement(undefined, 'SELECT pg_current_wal_lsn()::text AS lsn', { lsn: 'string' }),
  /**
   * Where the primary's next WAL record goes: past every commit made so far, even one not yet written out
   * (synchronous_commit off), which the written position can be short of. With the WAL page size, to
   * take off a header the position may point past (afterInsert).
   */
  inserted: sqlStatement(
    undefined,
    `SELECT pg_current_wal_insert_lsn()::text AS lsn, current_setting('wal_block_size')::int AS block`,
    { lsn: 'string', block: 'number' },
  ),
  /** How far a replica has replayed; null on a server that is not one. */
  replayed: sqlStatement(undefined, 'SELECT pg_last_wal_replay_lsn()::text AS lsn', { lsn: 'string?' }),
};

/**
 * Reads that may be a little behind, on a streaming replica (`DATABASE_REPLICA_URL`) when it can serve
 * them: each process polls how far the replica has replayed the primary's WAL. A merchant reads its own
 * writes: `fence(merchant)` after a write (a request that changed something, an event about to be sent to
 * it) keeps the primary's WAL position in Redis, shared by every process, and the merchant's reads go to the
 * primary until the replica has replayed past it. A replica that is down, refuses, or is over
 * REPLICA_MAX_LAG_MS behind sends every read to the primary, without an error; so does Redis away (no
 * fence can be read). Without a replica, nothing here does anything. docs/operations.md#a-read-replica
 * Kept whole: the poll, the fence and each read's routing all judge the same replayed position.
 */
@Injectable()
export class ReplicaReads implements OnApplicationShutdown {
  private readonly replica: pg.Pool | undefined;
  private readonly prefix: string;
  /** What the replica had replayed at the last poll, or null while it is not to be read. */
  private replayed: number | null = null;
  /** The primary's positions at recent polls, oldest first: how long ago the replica's position was written. */
  private readonly written: { at: number; lsn: number }[] = [];
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private unusable: string | null = 'not polled yet';
  /** When `replayed` was last read: a poll that hangs must not leave an old verdict standing. */
  private polledAt = 0;
  private readonly reads: Counter<'source'>;
  private readonly usable: Gauge;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly primary: DatabasePool,
    metrics: Metrics,
  ) {
    this.prefix = `${config.redis.queuePrefix}:replica-fence:`;
    this.reads = counterOf(metrics.registry);
    this.usable = gaugeOf(metrics.registry);
    if (!config.database.replicaUrl) return;
    this.replica = new pg.Pool({
      connectionString: config.database.replicaUrl,
      max: config.database.poolMax,
      connectionTimeoutMillis: 2_000,
      ...poolConnection(config.database),
    });
    // As the primary's pool: a connection the replica drops fails its own query, never the process.
    this.replica.on('connect', (client) => client.on('error', () => undefined));
    this.replica.on('error', () => undefined);
  }

  get configured(): boolean {
    return this.replica !== undefined;
  }

  /** `statement`'s rows for `merchantId`, from wherever `sourceFor` sends the merchant's reads. */
  async rows<R extends object>(merchantId: string, statement: SqlStatement<R>): Promise<R[]> {
    return this.rowsFrom(await this.sourceFor(merchantId), statement);
  }

  /**
   * `statement`'s rows from `source`, for a read of several statements that must all come from the same
   * server (a version and the page it versions). A replica failing mid-read leaves it for the primary.
   */
  async rowsFrom<R extends object>(source: ReadSource, statement: SqlStatement<R>): Promise<R[]> {
    if (source === 'replica' && this.replica) {
      try {
        const rows = (await this.replica.query<R>(statement)).rows;
        this.reads.inc({ source });
        return rows;
      } catch (error) {
        if (!isConnectionFailure(error)) throw error;
        this.markUnusable(`read failed: ${(error as Error).message}`);
      }
    }
    this.reads.inc({ source: 'primary' });
    return this.primary.rows(statement);
  }

  /** Where the merchant's next read that may be behind goes. */
  async sourceFor(merchantId: string): Promise<ReadSource> {
    if (!this.replica) return 'primary';
    this.startPolling();
    const replayed = this.replayed;
    if (replayed === null || Date.now() - this.polledAt > REPLICA_MAX_LAG_MS / 2) return 'primary';
    const fence = await this.redis.get(this.prefix + merchantId).catch(() => undefined);
    // Redis away: the fence cannot be known, so neither can the replica be trusted with this merchant.
    if (fence === undefined) return 'primary';
    return fence === null || Number(fence) <= replayed ? 'replica' : 'primary';
  }

  /**
   * After merchants' writes have committed, and before they can know of them (the answer to their request,
   * an event relayed to them): their reads stay on the primary until the replica has replayed this far.
   * Kept twice REPLICA_MAX_LAG_MS: a replica that has not replayed a write by then is read by no one.
   * Fails when it cannot be kept (Redis or Postgres away).
   */
  async fence(merchantIds: Iterable<string>): Promise<void> {
    const merchants = [...new Set(merchantIds)];
    if (!this.replica || merchants.length === 0) return;
    const [row] = await this.primary.rows({ ...REPLICA_SQL.inserted, values: [] });
    const lsn = String(afterInsert(lsnNumber(row?.lsn ?? '0/0'), row?.block ?? 8192));
    const ttl = String(2 * REPLICA_MAX_LAG_MS);
    await Promise.all(merchants.map((m) => this.redis.eval(RAISE_FENCE, 1, this.prefix + m, lsn, ttl)));
  }

  /**
   * Starts following the replica's position, so the first reads find it known: the api's, at boot. A
   * process that only writes (the worker fences the merchants it relays events to) never polls.
   */
  startPolling(): void {
    if (this.poller || !this.replica) return;
    this.poller = setInterval(() => {
      this.polling ??= this.poll().finally(() => (this.polling = undefined));
    }, POLL_MS);
    this.poller.unref();
    this.polling = this.poll().finally(() => (this.polling = undefined));
  }

  /** The primary's position first, then the replica's: the replica's may only be later than read. */
  private async poll(): Promise<void> {
    const now = Date.now();
    try {
      const [primary] = await this.primary.rows({ ...REPLICA_SQL.written, values: [] });
      if (primary) this.written.push({ at: now, lsn: lsnNumber(primary.lsn) });
    } catch {
      // The primary away is not the replica's problem; its position is simply not known this time.
    }
    let replayed: number;
    try {
      const [row] = (await this.replica!.query<{ lsn: string | null }>(REPLICA_SQL.replayed)).rows;
      if (!row?.lsn) return this.markUnusable('not a replica (pg_last_wal_replay_lsn() is null)');
      replayed = lsnNumber(row.lsn);
    } catch (error) {
      return this.markUnusable(`unreachable: ${(error as Error).message}`);
    }
    while (this.written.length > 1 && this.written[1].at <= now - REPLICA_MAX_LAG_MS) this.written.shift();
    // The oldest position kept was written at least REPLICA_MAX_LAG_MS ago, unless the replica is new.
    const oldest = this.written[0];
    if (oldest && oldest.at <= now - REPLICA_MAX_LAG_MS && oldest.lsn > replayed) {
      return this.markUnusable(`over ${REPLICA_MAX_LAG_MS} ms behind the primary`);
    }
    this.replayed = replayed;
    this.polledAt = now;
    if (this.unusable !== null) {
      this.logger.info({ was: this.unusable }, 'read replica: reads go to it');
      this.unusable = null;
      this.usable.set(1);
    }
  }

  private markUnusable(why: string): void {
    this.replayed = null;
    if (this.unusable === null) this.logger.warn({ why }, 'read replica: reads go to the primary');
    this.unusable = why;
    this.usable.set(0);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.poller);
    await this.polling;
    await this.replica?.end().catch(() => undefined);
  }
}

/** A connection that failed or was lost, not a statement the server refused. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  if (code === undefined) return true;
  // 57P01/57P02/57P03: shut down or not accepting; 08…: connection exceptions; 40001: a recovery conflict
  // on a standby (its replay removed what the read was looking at).
  return /^(57P0[123]|08|40001)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT'].includes(code);
}

function counterOf(registry: Registry): Counter<'source'> {
  const name = 'bff_database_reads_total';
  return (
    (registry.getSingleMetric(name) as Counter<'source'> | undefined) ??
    new Counter({
      name,
      help: 'Reads that may be a little behind (stored pages, lists, the change feed), by where they were served: replica or primary.',
      labelNames: ['source'],
      registers: [registry],
    })
  );
}

function gaugeOf(registry: Registry): Gauge {
  const name = 'bff_database_replica_usable';
  return (
    (registry.getSingleMetric(name) as Gauge | undefined) ??
    new Gauge({
      name,
      help: '1 while this process reads from the replica (DATABASE_REPLICA_URL), 0 while it reads everything from the primary (none configured, down, or behind).',
      registers: [registry],
    })
  );
}
