import { Cluster, Redis, type RedisOptions, SentinelConnector } from 'ioredis';
import type { AppConfig } from '#libs/config';

/** A single Redis or a Redis Cluster: the same commands, pub/sub and scripts for everything here. */
export type RedisClient = Redis | Cluster;

/**
 * ioredis options with the URL BullMQ also takes (`new Redis(url, rest)`), for a client of one master;
 * `retryStrategy` never null, as BullMQ's options type has it.
 */
export type MasterConnectionOptions = Omit<RedisOptions, 'retryStrategy'> & {
  url?: string;
  retryStrategy: (times: number) => number;
};

/**
 * A failover is over in seconds; ioredis's backoff grows to 2 s and BullMQ's (for connections it opens
 * from options) to 20 s, which would keep a worker off the new master that much longer than needed. A try
 * a second at most costs one connection attempt per client per second while Redis is away.
 */
const reconnectDelay = (times: number): number => Math.min(times * 100, 1_000);

/**
 * A connection still open to a master that was demoted (a managed Redis behind one endpoint, or Sentinel
 * before it reached this client) answers every write with READONLY: reconnecting finds the new master
 * (2: and sends the refused command again there).
 */
const reconnectOnReadOnly = (error: Error): 2 | false => (error.message.startsWith('READONLY') ? 2 : false);

/** What SentinelConnector's failover detector is to us: told of +switch-master, it disconnects the connector. */
interface FailoverDetector {
  disconnect(): void;
}

/**
 * ioredis's Sentinel connector, with its failover detector kept from ending the client for good. On the
 * sentinels' +switch-master the detector disconnects the connector; when that lands while the client is
 * asking the sentinels where the master is (it is reconnecting: the old master died), the pending connect
 * rejects and ioredis moves the client to `end`, from which it never reconnects. Seen here on a killed
 * master: among the few dozen clients of an api and a worker, one or two dead after every failover, and
 * with them the queue they served (the same end state as taskforcesh/bullmq#4378). So the detector's
 * disconnect waits for a connect under way to hand over its connection, and then drops that one (it may
 * be to the master the sentinels named before the switch): the client reconnects and asks them again.
 */
class FailoverSafeSentinelConnector extends SentinelConnector {
  private resolving = 0;
  /** A switch announced while a connect was under way, to act on once it is done. */
  private switched = false;

  constructor(options: ConstructorParameters<typeof SentinelConnector>[0]) {
    super(options);
    let detector: FailoverDetector | null = null;
    // The detector is private to ioredis, and replaced on every connection: each one set is wrapped.
    Object.defineProperty(this, 'failoverDetector', {
      configurable: true,
      get: () => detector,
      set: (next: FailoverDetector | null) => {
        if (next) {
          const disconnect = next.disconnect.bind(next);
          next.disconnect = () => {
            if (this.resolving === 0) disconnect();
            else this.switched = true;
          };
        }
        detector = next;
      },
    });
  }

  override connect(
    ...args: Parameters<SentinelConnector['connect']>
  ): ReturnType<SentinelConnector['connect']> {
    this.resolving += 1;
    const pending = super.connect(...args);
    pending.then(
      () => {
        this.resolving -= 1;
        if (this.resolving > 0 || !this.switched) return;
        this.switched = false;
        // Once ioredis has taken the connection (its close handler set): closing it then is a reconnect.
        setImmediate(() => this.disconnect());
      },
      () => {
        this.resolving -= 1;
      },
    );
    return pending;
  }
}

/**
 * The options of a client on the master: REDIS_SENTINELS when set (the sentinels name it, and tell of a
 * failover), else REDIS_URL. Not for a cluster (createRedisClient). BullMQ opens its connections from
 * these, so every client of the deployment finds and follows the master the same way.
 */
export function masterConnectionOptions(
  config: AppConfig['redis'],
  options: { maxRetriesPerRequest: number | null },
): MasterConnectionOptions {
  const common = {
    maxRetriesPerRequest: options.maxRetriesPerRequest,
    retryStrategy: reconnectDelay,
    reconnectOnError: reconnectOnReadOnly,
  };
  const sentinel = config.sentinel;
  if (!sentinel) return { url: config.url, ...common };
  // REDIS_URL names no host here: its credentials and database are the master's.
  const url = new URL(config.url);
  const db = Number(url.pathname.replace(/^\//, '') || 0);
  return {
    ...common,
    sentinels: sentinel.sentinels,
    name: sentinel.name,
    // While no sentinel answers, ioredis asks them again inside one connect for ever, and a command held
    // for the connection would wait as long: a request's never gave up (BullMQ's, with no retry limit,
    // wait by design). Not queued, a request's command fails at once while no master is known, and the
    // caller degrades or answers 503 as it does for any Redis outage.
    ...(options.maxRetriesPerRequest === null ? {} : { enableOfflineQueue: false }),
    ...(sentinel.password ? { sentinelPassword: sentinel.password } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    db,
    // On a planned failover the old master keeps taking writes until the sentinels demote it, 8 to 10 s
    // later, and those writes are then lost: listening for the sentinels' +switch-master moves the client
    // to the new master as soon as they announce it. (A killed master closes the connections by itself.)
    failoverDetector: true,
    Connector: FailoverSafeSentinelConnector as unknown as RedisOptions['Connector'],
  };
}

/**
 * How long a queue command waits out a cluster failover: until the dead master's replica is promoted,
 * its slots answer CLUSTERDOWN, or MOVED to the dead master. ioredis counts redirections, not time: with
 * its defaults (16, 100 ms apart, a MOVED to the dead node costing two) it gives up within a second or
 * two, and a job finishing then is left active until its lock expires and the stalled-job check takes
 * it back (30 s and more), its scheduler's next run with it. 100 redirections 200 ms apart hold a
 * command 10 to 20 s, past a failover with `cluster-node-timeout` 5000 (docs/operations.md). Only for
 * BullMQ's client, which waits out an outage anyway; a request's client still fails fast with 503.
 */
const QUEUE_CLUSTER_RETRIES = {
  maxRedirections: 100,
  retryDelayOnFailover: 200,
  retryDelayOnClusterDown: 200,
};

/**
 * A client on the configured Redis: REDIS_CLUSTER_NODES when set, else the master (REDIS_SENTINELS or
 * REDIS_URL). `maxRetriesPerRequest` is per use: null for BullMQ (its blocking commands must wait out an
 * outage), a small number elsewhere so a request fails fast with 503 instead of hanging.
 */
export function createRedisClient(
  config: AppConfig['redis'],
  options: { maxRetriesPerRequest: number | null },
): RedisClient {
  const cluster = config.cluster;
  if (!cluster) {
    const { url, ...rest } = masterConnectionOptions(config, options);
    return url ? new Redis(url, rest) : new Redis(rest);
  }
  return new Cluster(cluster.nodes, {
    // Off, because ioredis's ready check can leave a connect() unsettled for good. While a master is
    // dead and not yet replaced, every node answers cluster_state:fail (a second or two). A connect()
    // then fails the check, drops its connections and retries on its own, and the promise it returned
    // never settles, even once the retry is ready. BullMQ awaits that promise when it reconnects a
    // worker's blocking connection (after its watchdog gave up on a BZPOPMIN, which the failover's
    // retries make late), so the worker waits forever and takes no job: half the runs of
    // redis-cluster-failover.e2e-spec.ts, the symptom of taskforcesh/bullmq#4138. Without the check a
    // client is ready once it has the slots; a command meanwhile meets CLUSTERDOWN and is retried
    // (retryDelayOnClusterDown), then fails like any command while Redis is away.
    enableReadyCheck: false,
    ...(options.maxRetriesPerRequest === null ? QUEUE_CLUSTER_RETRIES : {}),
    redisOptions: {
      maxRetriesPerRequest: options.maxRetriesPerRequest,
      ...(cluster.password ? { password: cluster.password } : {}),
      ...(cluster.username ? { username: cluster.username } : {}),
      ...(cluster.tls ? { tls: {} } : {}),
    },
  });
}

/**
 * A second client like `client`, for SUBSCRIBE (which takes a connection over). Without ioredis's own
 * re-subscription on reconnect: it leaves its SUBSCRIBE's promise unhandled, so a connection lost again
 * before the reply is an unhandled rejection; subscribeWhenReachable subscribes on every `ready` instead.
 */
export function duplicateRedisClient(client: RedisClient): RedisClient {
  return client instanceof Cluster ? client.duplicate() : client.duplicate({ autoResubscribe: false });
}
