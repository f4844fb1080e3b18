// Types of private-services.mjs for the TypeScript tests.

export function freePort(): Promise<number>;

/** Runs `cleanup` when this process exits, however; returns what forgets it (after a clean destroy). */
export function atExit(cleanup: () => void): () => void;

/** A redis-server's arguments on `port`: foreground, loopback only, keeping nothing on disk. */
export function redisArgs(port: number): string[];

/** Whether something accepts connections on 127.0.0.1:`port`. */
export function reachable(port: number): Promise<boolean>;

/** Waits for `check` to hold, polling; fails naming `what` after `ms` (30 s). */
export function waitUntil(check: () => boolean | Promise<boolean>, what: string, ms?: number): Promise<void>;

/** The postgres user's uid and gid (Postgres and PgBouncer refuse to run as root). */
export function postgresIds(): { uid: number; gid: number };

export interface PrivateRedis {
  port: number;
  url: string;
  isRunning(): boolean;
  /** Starts it again after stop() or kill(): empty. */
  start(): Promise<void>;
  /** SIGTERM: Redis shuts down without saving. */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed host. */
  kill(): Promise<void>;
  /** Down and up again on the same port, without its data. */
  restart(): Promise<void>;
  destroy(): Promise<void>;
}

export type PostgresStopMode = 'smart' | 'fast' | 'immediate';

export interface PrivatePostgresOptions {
  /** Server settings (`max_connections: 100`), over the kit's own. */
  settings?: Record<string, string | number>;
}

export interface PrivatePostgres {
  port: number;
  /** The `bff` database of the cluster (empty: migrate it). */
  url: string;
  logFile: string;
  isRunning(): boolean;
  /** The server's own process (the postmaster), whose children are its backends; while it runs. */
  postmasterPid(): number;
  start(): Promise<void>;
  stop(mode?: PostgresStopMode): Promise<void>;
  restart(mode?: PostgresStopMode): Promise<void>;
  destroy(): Promise<void>;
}

export function startPrivateRedis(): Promise<PrivateRedis>;

export interface PrivateRedisCluster {
  ports: number[];
  /** host:port,… as REDIS_CLUSTER_NODES takes it. */
  nodes: string;
  /** redis-cli (following redirections) against one node, the first live one by default: its stdout. */
  cli(args: string[], port?: number): string;
  /** The port of the master serving `key`'s hash slot now. */
  masterFor(key: string): number;
  /** SIGKILL the node on `port`, as a crashed host; resolves once it is gone. */
  kill(port: number): Promise<void>;
  /** Resolves once every live node says cluster_state:ok (a killed master's replica promoted), in `ms` (30 s). */
  whenOk(ms?: number): Promise<void>;
  destroy(): Promise<void>;
}

export interface PrivateRedisClusterOptions {
  /** Replicas per master (0): with any, a node is judged failed after 2 s, so one is promoted within seconds. */
  replicas?: number;
}

export function startPrivateRedisCluster(
  masters?: number,
  options?: PrivateRedisClusterOptions,
): Promise<PrivateRedisCluster>;
export function startPrivatePostgres(options?: PrivatePostgresOptions): Promise<PrivatePostgres>;
