import type { AppLogger } from '#libs/observability';

export const REDIS = Symbol('REDIS');

/**
 * Logs connection errors through the JSON logger, at most once per interval per source: ioredis retries
 * forever while Redis is down, and every retry would otherwise print an unhandled-error stack to stderr.
 */
export function logConnectionErrors(
  emitter: { on(event: 'error', listener: (error: Error) => void): unknown },
  logger: AppLogger,
  source: string,
  intervalMs = 10_000,
): void {
  emitter.on('error', connectionErrorLogger(logger, source, intervalMs));
}

/** The listener logConnectionErrors attaches: a warning per `intervalMs` at most. */
export function connectionErrorLogger(
  logger: AppLogger,
  source: string,
  intervalMs = 10_000,
): (error: Error) => void {
  let last = 0;
  return (error: Error) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    logger.warn({ source, err: error }, `${source}: connection error (retrying)`);
  };
}

/**
 * Subscribes `subscriber` to `channel`, now and after every reconnection (`ready`): duplicateRedisClient
 * turns ioredis's own re-subscription off, since it leaves its promise unhandled. Resolves once subscribed,
 * or once the first try failed because Redis is unreachable (at boot during an outage): the process starts
 * and serves, and the subscription is made when Redis is back. A wake-up or revocation missed meanwhile
 * costs what Redis being away costs anyway.
 */
export async function subscribeWhenReachable(
  subscriber: {
    subscribe(channel: string): Promise<unknown>;
    on(event: 'ready', listener: () => void): unknown;
  },
  channel: string,
): Promise<void> {
  // A failure is the connection lost again: the next `ready` tries again.
  const attempt = (): Promise<void> => subscriber.subscribe(channel).then(noop, noop);
  subscriber.on('ready', () => void attempt());
  await attempt();
}

const noop = () => undefined;

/**
 * Closes a client within `timeoutMs`. A connected one is quit (pending replies first); one that is not
 * connected is disconnected at once: ioredis would queue the QUIT until Redis came back, so a process
 * stopped during an outage would never exit.
 */
export async function closeRedis(
  client: { status: string; quit(): Promise<unknown>; disconnect(): void },
  logger: AppLogger,
  source: string,
  timeoutMs = 2_000,
): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    logger.info({ source, status: client.status }, `${source}: Redis unreachable, connection dropped`);
    client.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const quit = client.quit().then(
    () => true,
    () => false,
  );
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const quitted = await Promise.race([quit, timedOut]);
  clearTimeout(timer);
  if (!quitted) {
    logger.warn({ source, timeoutMs }, `${source}: Redis did not answer QUIT, connection dropped`);
    client.disconnect();
  }
}
