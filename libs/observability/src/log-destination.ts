import { type DestinationStream, pino } from 'pino';

/** A write waits until this many bytes of lines have gathered, or {@link LOG_FLUSH_MS} has passed. */
const LOG_BATCH_BYTES = 16 * 1024;
/** At most this many bytes go in one write. */
const LOG_WRITE_BYTES = 64 * 1024;
/** The longest a line waits for others before it is written anyway. */
export const LOG_FLUSH_MS = 50;

/**
 * stdout for pino, written a batch of lines at a time: pino's own destination (sonic-boom, flushed when
 * the process exits, quiet on a closed pipe) in its buffer mode, each line turned into bytes as it is
 * logged. Under load an access-log line then costs one small copy rather than a write of its own (and,
 * in sonic-boom's text mode, a copy of every line waiting with it: docs/benchmarks.md, "API reads").
 * A process killed outright (SIGKILL) loses at most the last {@link LOG_FLUSH_MS} of lines.
 */
export function batchedStdout(): DestinationStream {
  const stream = pino.destination({
    dest: 1,
    sync: false,
    contentMode: 'buffer',
    minLength: LOG_BATCH_BYTES,
    maxWrite: LOG_WRITE_BYTES,
  });
  // Not sonic-boom's periodicFlush: that writes (an empty buffer, through the thread pool) every period
  // even when nothing was logged. A timer armed by the first line after the last flush costs an idle
  // process nothing.
  let flushTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    flushTimer = undefined;
    // Ended (at exit) or gone (a closed pipe): nothing to write to, and flush would throw.
    if (!(stream as unknown as { destroyed: boolean }).destroyed) stream.flush();
  };
  // In buffer mode sonic-boom counts and joins Buffers; pino hands it strings.
  const write = stream.write.bind(stream) as unknown as (bytes: Buffer) => boolean;
  stream.write = (line: string) => {
    flushTimer ??= setTimeout(flush, LOG_FLUSH_MS).unref();
    return write(Buffer.from(line));
  };
  return stream;
}
