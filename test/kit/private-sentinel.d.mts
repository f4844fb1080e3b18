// Types of private-sentinel.mjs for the TypeScript tests.

export interface PrivateSentinelOptions {
  /** The master group's name (`bff`), as REDIS_SENTINEL_NAME takes it. */
  name?: string;
}

export interface PrivateSentinel {
  name: string;
  /** host:port,… as REDIS_SENTINELS takes it. */
  sentinels: string;
  sentinelPorts: number[];
  /** The current master's port: what the sentinels agree on and the node itself confirms. */
  master(): Promise<number>;
  /** SIGKILL the current master, as a crashed host; resolves with its port once it is gone. */
  killMaster(): Promise<number>;
  /** A planned failover (`SENTINEL FAILOVER`): resolves with the old master's port once it was asked. */
  failover(): Promise<number>;
  /** The new master, once the sentinels agree on one other than `old` (within `ms`, 30 s). */
  promotedFrom(old: number, ms?: number): Promise<number>;
  /** A killed node back (empty) as a replica of the current master, once in sync. */
  restart(port: number): Promise<void>;
  /** redis-cli against `port`: its stdout ('' when it failed). */
  cli(args: string[], port: number): Promise<string>;
  /** Each running node's role and its clients BullMQ named, with the command each last ran. */
  clients(): Promise<string>;
  destroy(): Promise<void>;
}

export function startPrivateSentinel(options?: PrivateSentinelOptions): Promise<PrivateSentinel>;
