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
 * Subscribes `subscriber` to `channel`. Resolves once subscribed, or once the first try failed because
 * Redis is unreachable (at boot during an outage): the process starts and serves, and the subscription is
 * made on every reconnection until it holds (ioredis re-subscribes by itself only to channels it holds).
 * A wake-up or revocation missed meanwhile costs what Redis being away costs anyway.
 */
export async function subscribeWhenReachable(
  subscriber: {
    subscribe(channel: string): Promise<unknown>;
    once(event: 'ready', listener: () => void): unknown;
    status: string;
  },
  channel: string,
): Promise<void> {
  const attempt = (): Promise<void> =>
    subscriber.subscribe(channel).then(
      () => undefined,
      () => {
        if (subscriber.status !== 'end') subscriber.once('ready', () => void attempt());
      },
    );
  await attempt();
}

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
