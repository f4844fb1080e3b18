/** Our own infrastructure: when one of them does not answer, a request fails through no fault of its own. */
export type Dependency = 'postgres' | 'redis';

/** What our code throws when it gives up waiting for a dependency (an enqueue past its deadline). */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: Dependency,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependencyUnavailableError';
  }
}

/**
 * Postgres itself unavailable: connection exceptions (class 08), operator intervention short of a
 * cancelled query (57000, 57P01-05: shutting down, restarting, cannot connect now, database dropped, idle
 * session ended), too many connections (53300), and a write that reached a standby (25006,
 * read_only_sql_transaction): during a failover a connection may still lead to the demoted primary
 * until the proxy in front cuts it (docs/failover.md#postgres-patroni-behind-haproxy). 57014 (a
 * cancelled statement) is ours, not an outage.
 */
const POSTGRES_CODES = /^(57000|57P0[1-5]|08[0-9A-Z]{3}|53300|25006)$/;
/**
 * Prisma's codes for a database it cannot reach, lost, or waited too long for (P1xxx, pool timeout), and
 * P2028: an interactive transaction that could not start within its wait or outlived its timeout, which on
 * a database slow to answer (a loaded machine, a failover) is the same wait, not a fault of the request.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
/** The driver adapter's kinds for the same (`meta.driverAdapterError`). */
const ADAPTER_KINDS =
  /DatabaseNotReachable|DatabaseUnavailable|ConnectionClosed|SocketTimeout|TooManyConnections/;
const PG_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/;
/**
 * Socket errors. ioredis never surfaces these for a command (it retries, then throws its own errors
 * below), and the upstream client turns its own into UPSTREAM_UNAVAILABLE, so one reaching here is pg's.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * ioredis's messages for a Redis it cannot reach. On a cluster, a slot whose master died and whose
 * replica is not yet promoted answers CLUSTERDOWN, or MOVED to the dead master, until ioredis gives up
 * on the command with "Too many Cluster redirections": the failover's window, not a bug.
 */
const REDIS_MESSAGES =
  /^Connection is closed\.?$|Stream isn't writeable|enableOfflineQueue|None of startup nodes is available|Failed to refresh slots cache|^Too many Cluster redirections|^CLUSTERDOWN/;
/** ioredis's own error classes for a Redis (or cluster) it cannot reach. */
const REDIS_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);

const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { message?: unknown; cause?: { code?: unknown; originalCode?: unknown } } };
}

/**
 * The dependency whose outage `error` is, or undefined when it is something else (a bug stays a bug).
 * Recognised by shape, so this library depends on none of the clients; the cause chain is followed.
 */
export function dependencyFailureOf(error: unknown): Dependency | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth += 1) {
    if (e instanceof DependencyUnavailableError) return e.dependency;
    const shape = e as ErrorShape;
    const name = text(shape.name);
    const code = text(shape.code);
    const message = text(shape.message);
    if (REDIS_NAMES.has(name) || REDIS_MESSAGES.test(message)) return 'redis';
    if (name === 'PrismaClientInitializationError') return 'postgres';
    if (name.startsWith('PrismaClient') && PRISMA_CODES.has(code)) return 'postgres';
    const adapter = shape.meta?.driverAdapterError;
    if (adapter && ADAPTER_KINDS.test(text(adapter.message))) return 'postgres';
    // Prisma wraps a server error it has no kind for (57P03, the database shutting down) with its SQLSTATE
    // in the adapter error's cause.
    const sqlState = text(adapter?.cause?.originalCode) || text(adapter?.cause?.code);
    if (POSTGRES_CODES.test(sqlState)) return 'postgres';
    if (POSTGRES_CODES.test(code) || SOCKET_CODES.has(code) || PG_MESSAGES.test(message)) return 'postgres';
    if (name === 'DriverAdapterError' && ADAPTER_KINDS.test(message)) return 'postgres';
    e = shape.cause;
  }
  return undefined;
}

/**
 * Runs `task` in the background, again every `everyMs` while it fails because a dependency is away, until
 * it succeeds or `giveUpAt` (ms since the epoch) passes. For what only the database can finish after the
 * caller has been answered (a claim handed back, an answer already obtained stored): done once the
 * database returns instead of at the end of a lease or a reconciliation. `onGiveUp` hears the last error
 * when it was not an outage, or when time ran out.
 */
export function retryWhileUnavailable(
  task: () => Promise<unknown>,
  {
    giveUpAt,
    everyMs = 1_000,
    onGiveUp,
  }: { giveUpAt: number; everyMs?: number; onGiveUp: (error: unknown) => void },
): void {
  const attempt = () =>
    void task().catch((error: unknown) => {
      if (dependencyFailureOf(error) && Date.now() + everyMs < giveUpAt) setTimeout(attempt, everyMs).unref();
      else onGiveUp(error);
    });
  if (Date.now() + everyMs < giveUpAt) setTimeout(attempt, everyMs).unref();
}
