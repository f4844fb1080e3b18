import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JOB_REQUEST_ID_PREFIX, runInContext } from '#libs/context';
import { DomainError, ErrorCode } from '#libs/errors';
import {
  accessLogFields,
  type AppLogger,
  inRequestTrace,
  type Metrics,
  NestPinoLogger,
} from '#libs/observability';
import { sendError } from './http-error.filter.js';
import {
  clientErrorHandler,
  PATH_PARAMETER_MAX_LENGTH,
  registerBodyParsers,
  registerRequestGuards,
} from './malformed-input.js';
import { PROBE_CONFIG } from './route-config.js';

/** Accepted inbound request ids; anything else is replaced, so logs and headers stay clean. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface HttpAppOptions {
  logger: AppLogger;
  metrics: Metrics;
  bodyLimitBytes: number;
  /** Proxies trusted to name the client (request.ip); none when absent. */
  trustProxy?: false | number | string[];
}

/** The caller's `x-request-id` when it is well formed, else a new one. */
function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const header = req.headers['x-request-id'];
  // A caller's id that looks like a job's would mix its requests into that job's log lines.
  return typeof header === 'string' && REQUEST_ID.test(header) && !header.startsWith(JOB_REQUEST_ID_PREFIX)
    ? header
    : randomUUID();
}

/**
 * Builds a Fastify-backed Nest application with the conventions every HTTP app of the project shares:
 * `x-request-id` accepted and echoed (it is the tracingId), one JSON access-log line and metrics per request.
 */
export async function createHttpApp(
  module: unknown,
  options: HttpAppOptions,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimitBytes,
    routerOptions: { maxParamLength: PATH_PARAMETER_MAX_LENGTH },
    // A hop count as proxy-addr's function form (the adapter's types take no number).
    trustProxy:
      typeof options.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (options.trustProxy as number)
        : (options.trustProxy ?? false),
    genReqId: requestIdOf,
    // Fastify's own closing answer is a bare 503 outside the envelope, without Retry-After: ours is
    // registered below (answerWhileClosing).
    return503OnClosing: false,
    // Errors Fastify raises before routing (a malformed URL) would otherwise answer in Fastify's own shape.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      sendError(options.logger, error, request, reply),
    // Node would answer a missing Host itself, outside the envelope; registerRequestGuards refuses it instead.
    http: { requireHostHeader: false },
    // Requests Node's parser refuses (a header without a colon, two Content-Lengths, an oversized URL).
    clientErrorHandler,
  });
  const app = await NestFactory.create<NestFastifyApplication>(module as never, adapter, {
    logger: new NestPinoLogger(options.logger),
    bufferLogs: false,
    // Ours replace Nest's body parsers (registerBodyParsers below), which Nest would add again at init.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  registerBodyParsers(fastify);
  // Hooks that never wait take Fastify's callback, not a promise: every request runs them.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  answerWhileClosing(fastify, options.logger);
  registerRequestGuards(fastify);
  // The request's context starts once its body is read: a context entered before would not survive the
  // parser, whose callbacks run from the socket's. Guards, pipes, handlers and what they await run in it,
  // and in the request's trace (when tracing is on), entered again for the same reason; the trace first,
  // since with tracing on the request context rides in the trace's context (carryRequestContextIn).
  // One exception, with tracing on: @fastify/otel runs the not-found handler (an unmatched route) in the
  // context it saved at onRequest, before this one, so that handler sees no request context. Nothing in
  // it needs one: the error answer and its log take the request's id from the request itself.
  fastify.addHook('preHandler', (request, _reply, done) => {
    inRequestTrace(request, () => runInContext({ requestId: String(request.id) }, done));
  });
  observeResponses(fastify, options);
  app.enableShutdownHooks();
  return app;
}

/** The requests each app has answered, its probes left out (see requestsAnsweredBy). */
const ANSWERED = new WeakMap<FastifyInstance, { count: number }>();

/**
 * How many requests `app` has answered, its probes (health, metrics: `ProbeRoutes`) left out: an app
 * that answered only those since is idle.
 */
export const requestsAnsweredBy = (app: NestFastifyApplication): number =>
  ANSWERED.get(app.getHttpAdapter().getInstance())?.count ?? 0;

/** Every answer's metrics and access-log line, once it is sent. */
function observeResponses(fastify: FastifyInstance, options: HttpAppOptions): void {
  const answered = { count: 0 };
  ANSWERED.set(fastify, answered);
  fastify.addHook('onResponse', (request, reply, done) => {
    if (
      (request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[PROBE_CONFIG] !== true
    )
      answered.count += 1;
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    const seconds = reply.elapsedTime / 1000;
    options.metrics.httpRequestDuration.observe(labels, seconds);
    options.metrics.httpRequestsTotal.inc(labels);
    // Reads that succeed (a page polling, a probe every few seconds) are most of the traffic and tell an
    // operator least: at debug. What changes something, and every refusal or failure, stays at info.
    const level = READS.has(request.method) && reply.statusCode < 400 ? 'debug' : 'info';
    if (!options.logger.isLevelEnabled(level)) return done();
    options.logger[level](
      accessLogFields({
        reqId: String(request.id),
        method: request.method,
        url: request.url,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      }),
      'request',
    );
    done();
  });
}

/** Methods that change nothing: their successful answers are logged at debug. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How soon a client refused by a closing process may retry: another instance (or this one restarted) answers. */
const CLOSING_RETRY_AFTER_SECONDS = 1;

/**
 * Once the process is closing, a request that still arrives on an open connection (keep-alive, pipelined,
 * or a stream's reconnect racing the close) is refused as an outage, in the envelope with Retry-After,
 * and the connection is closed so the client's next try opens one to a process that is running.
 */
function answerWhileClosing(fastify: FastifyInstance, logger: AppLogger): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done();
    void reply.header('connection', 'close');
    sendError(
      logger,
      new DomainError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'This process is shutting down; retry after the Retry-After delay.',
        {
          retryAfterSeconds: CLOSING_RETRY_AFTER_SECONDS,
        },
      ),
      request,
      reply,
    );
    // Answered here: the request goes no further (a callback hook that replied does not call done).
  });
}

export type { INestApplication, NestFastifyApplication };
