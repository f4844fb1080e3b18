import { type DestinationStream, pino } from 'pino';

/** A write waits until this many bytes of lines have gathered, or {@link LOG_FLUSH_MS} has passed. */
const LOG_BATCH_BYTES = 16 * 1024;
/** At most this many bytes go in one write. */
const LOG_WRITE_BYTES = 64 * 1024;
/** The longest a line waits for others before it is written anyway. */
export const LOG_FLUSH_MS = 50;

type Destination = ReturnType<typeof pino.destination>;

/** Not ended nor gone (a closed pipe): there is somewhere to write, and flushing will not throw. */
const isOpen = (stream: Destination) => !(stream as unknown as { destroyed: boolean }).destroyed;

/** The destinations of this process, written out when it exits (one listener, however many loggers). */
const open = new Set<WeakRef<Destination>>();

function flushAtExit(stream: Destination): void {
  if (open.size === 0) {
    process.once('exit', () => {
      for (const ref of open) {
        const left = ref.deref();
        try {
          if (left && isOpen(left)) left.flushSync();
        } catch {
          // stdout gone (a closed pipe): nothing left to write to.
        }
      }
    });
  }
  open.add(new WeakRef(stream));
}

/**
 * stdout for pino, written a batch of lines at a time: pino's own destination (sonic-boom, quiet on a
 * closed pipe) in its buffer mode, each line turned into bytes as it is logged and written, synchronously,
 * once 16 KiB have gathered or {@link LOG_FLUSH_MS} has passed. Under load an access-log line then costs
 * one small copy rather than a write of its own (measured in commit 15343fb). Synchronous writes
 * keep the lines in order whatever happens: an asynchronous write still under way when the process exits
 * would land after the lines written out at exit. What waits is written when the process exits; one
 * killed outright (SIGKILL) loses at most the last {@link LOG_FLUSH_MS} of lines.
 */
export function batchedStdout(): DestinationStream {
  const stream = pino.destination({
    dest: 1,
    sync: true,
    contentMode: 'buffer',
    minLength: LOG_BATCH_BYTES,
    maxWrite: LOG_WRITE_BYTES,
  });
  flushAtExit(stream);
  // Not sonic-boom's periodicFlush: that writes (an empty buffer) every period even when nothing was
  // logged. A timer armed by the first line after the last flush costs an idle process nothing.
  let flushTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    flushTimer = undefined;
    if (isOpen(stream)) stream.flush();
  };
  // In buffer mode sonic-boom counts and joins Buffers; pino hands it strings.
  const write = stream.write.bind(stream) as unknown as (bytes: Buffer) => boolean;
  stream.write = (line: string) => {
    flushTimer ??= setTimeout(flush, LOG_FLUSH_MS).unref();
    return write(Buffer.from(line));
  };
  return stream;
}
