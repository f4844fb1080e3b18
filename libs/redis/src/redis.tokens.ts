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
