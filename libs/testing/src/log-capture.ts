import { Writable } from 'node:stream';
import { type AppLogger, createLogger } from '#libs/observability';

/** A real pino logger (same redaction as production) whose lines are kept in memory for assertions. */
export function captureLogger(
  app = 'test',
  level = 'trace',
): { logger: AppLogger; lines: string[]; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger({ app, level, destination });
  return { logger, lines, text: () => lines.join('\n') };
}
