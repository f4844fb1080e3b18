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
  let last = 0;
  emitter.on('error', (error: Error) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    logger.warn({ source, err: error }, `${source}: connection error (retrying)`);
  });
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
