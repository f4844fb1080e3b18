import type { LoggerService } from '@nestjs/common';
import { type DestinationStream, type Logger, pino } from 'pino';
import { currentContext } from '#libs/context';
import { batchedStdout } from './log-destination.js';
import { isoTime } from './log-time.js';
import { isAlreadyRedacted, redact } from './redact.js';
import { traceFields } from './trace-context.js';

export type AppLogger = Logger;

export interface LoggerOptions {
  level: string;
  /** The app's name, stamped on every line so interleaved logs of api, worker and sandbox stay readable. */
  app: string;
  /** Tests pass a stream to capture lines. */
  destination?: DestinationStream;
}

interface RequestLike {
  id?: unknown;
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  socket?: { remoteAddress?: string };
}

/** JSON logs; every object, message and argument logged passes through {@link redact}. */
export function createLogger(options: LoggerOptions): AppLogger {
  const logger = pino(
    {
      level: options.level,
      base: { app: options.app, pid: process.pid },
      // Every line written while a request or job runs names it (and the merchant it acts for), without
      // anyone passing them along.
      // With tracing on, the running span's traceId and spanId too: a line leads to its trace.
      mixin: () => {
        const context = currentContext();
        const traced = traceFields();
        if (!context) return traced ?? {};
        const { caller, subject } = context;
        const fields = {
          reqId: context.requestId,
          ...subject,
          ...(caller && caller.kind !== 'operator' ? { merchantId: caller.merchantId } : {}),
        };
        return traced ? { ...fields, ...traced } : fields;
      },
      timestamp: isoTime,
      messageKey: 'msg',
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => (isAlreadyRedacted(object) ? object : (redact(object) as Record<string, unknown>)),
      },
      hooks: {
        // Interpolation arguments (log.info('got %j', obj)) bypass `formatters.log` too.
        logMethod(args, method) {
          const redacted = args.map((a, i) =>
            i === 0 && typeof a === 'object' ? a : redact(a),
          ) as typeof args;
          method.apply(this, redacted);
        },
      },
      serializers: {
        req: (req: RequestLike) => ({
          id: req.id,
          method: req.method,
          url: req.url,
          remoteAddress: req.socket?.remoteAddress,
          userAgent: req.headers?.['user-agent'],
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        // `formatters.log` (redact) already turned errors into their logged shape; pino's default `err`
        // serializer runs after it and would relabel them "Object".
        err: (err: unknown) => err,
      },
    },
    options.destination ?? batchedStdout(),
  );
  // Child bindings (log.child({ … })) pass neither through `formatters.log` nor the hooks. Children
  // inherit from their parent, so this one wrapper covers grandchildren too.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the right `this`.
  const child = logger.child;
  logger.child = function redactedChild(this: AppLogger, bindings, childOptions) {
    return child.call(this, redact(bindings) as typeof bindings, childOptions);
  } as typeof logger.child;
  return logger;
}

/** Routes Nest's own logs (bootstrap, module init, exceptions) through the same pino logger. */
/** The contexts of Nest's start-up lines (module wiring, route mapping, "started"). */
export const BOOT_CHATTER: ReadonlySet<string> = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: AppLogger) {}

  log(message: unknown, ...rest: unknown[]) {
    // Nest's boot chatter (a line per module and per route, ~200 of them) is for debugging, not for the
    // person who just ran `npm start`: at info level the banner is the first thing they see.
    const context = rest[rest.length - 1];
    this.write(typeof context === 'string' && BOOT_CHATTER.has(context) ? 'debug' : 'info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.write('fatal', message, rest);
  }

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    rest: unknown[],
  ) {
    // Nest passes the context name last, and a stack before it for errors.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    if (message instanceof Error) {
      this.logger[level]({ context, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ context, ...message });
    } else {
      this.logger[level]({ context, stack }, String(message));
    }
  }
}
