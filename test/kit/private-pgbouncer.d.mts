// Types of private-pgbouncer.mjs for the TypeScript tests.

export interface PrivatePgbouncerOptions {
  /** A URL of the Postgres server to pool (the shared one or a private one); its database is `url()`'s default. */
  postgresUrl: string;
  /** Server connections per database and user (default 5). */
  poolSize?: number;
  /** SQL run on each new server connection (PgBouncer's `connect_query`). */
  connectQuery?: string;
}

export interface PrivatePgbouncer {
  port: number;
  /** The URL of `database` (by default the one of `postgresUrl`) through this PgBouncer. */
  url(database?: string): string;
  logFile: string;
  /** Its log so far. */
  log(): string;
  isRunning(): boolean;
  start(): Promise<void>;
  /** SIGTERM: every client and server connection closed. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** The rows of `SHOW <what>` on its admin console (POOLS, SERVERS, CLIENTS, STATS…). */
  show(what: string): Promise<Record<string, unknown>[]>;
  destroy(): Promise<void>;
}

export function startPrivatePgbouncer(options: PrivatePgbouncerOptions): Promise<PrivatePgbouncer>;
