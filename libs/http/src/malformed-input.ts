import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { DomainError, ErrorCode, type ErrorEnvelope, invalidRequest } from '#libs/errors';

/**
 * Input that would otherwise fail below our exception filter, or deep inside a library, answered as a
 * 4xx in the error envelope instead: bodies nested beyond any real request (class-transformer recurses
 * and overflows the stack), NUL bytes (Postgres refuses them in text with a 22021), empty JSON bodies on
 * bodiless routes (many clients send the header anyway) and malformed raw HTTP (Node answers those
 * before Fastify or Nest see a request).
 */

/** No request of the API nests deeper than a handful of levels; 32 leaves room and stops recursion bombs. */
export const MAX_JSON_DEPTH = 32;

/**
 * The longest path parameter the router takes (Fastify's default, named): ids are UUIDs or upstream ids
 * well under it; a longer one is refused with 400 before any route runs, so every route with a path
 * parameter can answer that 400 (the document says so: apps/api/src/system/openapi.ts).
 */
export const PATH_PARAMETER_MAX_LENGTH = 100;

const invalid = (field: string, issue: string) => invalidRequest([{ field, issue }]);

/** Walks a parsed JSON value without recursion: refuses depth beyond the cap and NUL bytes in any string. */
export function checkJsonValue(value: unknown, maxDepth = MAX_JSON_DEPTH): DomainError | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return invalid('body', 'must not contain NUL characters');
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= maxDepth) return invalid('body', `must not nest deeper than ${maxDepth} levels`);
    if (Array.isArray(current)) {
      for (const item of current) stack.push({ value: item, depth: depth + 1 });
    } else {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes('\u0000')) return invalid('body', 'must not contain NUL characters');
        stack.push({ value: item, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

/** Forms (the sandbox's bank page posts one): plain key/value pairs, with the same NUL check. */
function registerFormBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      const parsed = { ...parseQueryString(typeof body === 'string' ? body : body.toString('utf8')) };
      const refused = checkJsonValue(parsed);
      return refused ? done(refused) : done(null, parsed);
    },
  );
}

/** Route config of routes that must see their body's exact bytes (a signature is checked over them). */
export const RAW_BODY_ROUTE = { rawBody: true } as const;

const wantsRawBody = (request: FastifyRequest) =>
  (request.routeOptions.config as { rawBody?: boolean } | undefined)?.rawBody === true;

/**
 * The body parsers of every app (Nest's own are switched off, as it would register them again at init).
 * JSON: Fastify's own parser (prototype-poisoning checks included), plus an empty body read as no body,
 * and the depth and NUL checks above. A route marked with {@link RAW_BODY_ROUTE} gets the bytes unparsed,
 * whatever content type they were sent as (a signed body is judged by its signature and its content, and
 * a sender may label JSON `text/plain` or `application/…+json`); any other route still refuses a type it
 * cannot parse, as Fastify does.
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  registerFormBodyParser(fastify);
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser(
    ['text/plain', '*'],
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      if (wantsRawBody(request)) return done(null, body);
      const type = request.headers['content-type'] ?? '';
      if (/^text\/plain\s*(;|$)/i.test(type)) return done(null, body.toString());
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type));
    },
  );
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      if (wantsRawBody(request)) return done(null, body);
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      void parseJson(request, text, (error: Error | null, parsed?: unknown) => {
        if (error) return done(error);
        const refused = checkJsonValue(parsed);
        return refused ? done(refused) : done(null, parsed);
      });
    },
  );
}

/**
 * Checks before routing: an HTTP/1.1 request must name its Host (RFC 9112), and path and query arrive
 * percent-encoded, so a `%00` anywhere in them is a NUL byte once decoded.
 */
export function registerRequestGuards(fastify: FastifyInstance): void {
  fastify.addHook(
    'onRequest',
    (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      if (request.raw.httpVersion === '1.1' && !request.headers.host) {
        return done(invalid('host', 'an HTTP/1.1 request must send a Host header'));
      }
      if (/%00/i.test(request.url) || request.url.includes('\u0000'))
        return done(invalid('url', 'must not contain NUL characters'));
      done();
    },
  );
}

const CLIENT_ERROR_MESSAGES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request URL or headers are too large.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request was not received in time.',
};

/** The envelope for a request too malformed for Node to hand to Fastify, written straight to the socket. */
export function rawClientErrorResponse(code: string | undefined): string {
  const tracingId = randomUUID();
  const body: ErrorEnvelope = {
    error: {
      code: ErrorCode.VALIDATION_FAILED,
      status: 400,
      message: (code && CLIENT_ERROR_MESSAGES[code]) ?? 'The request is not valid HTTP/1.1.',
      tracingId,
    },
  };
  const json = JSON.stringify(body);
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `x-request-id: ${tracingId}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: the same answer as Node's, in our envelope. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.end(rawClientErrorResponse(error.code));
  else socket.destroy(error);
}
