import { createHash, type Hash } from 'node:crypto';
import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WithRouteConfig } from './route-config.js';

/**
 * Conditional GETs (docs/api-guide.md, "Conditional reads"): a marked read's 200 carries a strong `ETag`
 * over every byte it says except `meta.tracingId` (which names the request, not the data), and a request
 * whose `If-None-Match` holds it is answered 304 without a body. The answer is computed as for a 200
 * first (credentials, rate limit and the read itself run as ever), so a 304 is only ever answered when
 * a 200 would have carried the same bytes.
 */

/** Fastify route config key set by {@link ConditionalGet}. */
const CONDITIONAL = 'conditionalGet';

export const CACHE_CONTROL = 'private, no-cache';
/** The answer depends on who asks: a shared cache must key it by the credentials. */
export const VARY_CREDENTIALS = 'Authorization, Cookie';

/**
 * A served answer with its `meta.tracingId` taken out: the bytes before and after the id. Whatever
 * keeps answers (see `request.conditional`) serves `head + id + tail` again for another request.
 */
export interface SplitAnswer {
  head: Buffer;
  tail: Buffer;
  etag: string;
}

/** What the api may tell the hook about a request of a conditional route (set before the handler runs). */
export interface ConditionalRequest {
  conditional?: {
    /** The answer's ETag when it was served from kept bytes: nothing to hash. */
    etag?: string;
    /** Called with each 200 this request serves, split and tagged, unless it came from kept bytes. */
    served?: (answer: SplitAnswer) => void;
  };
}

/** Marks a GET as conditional and documents its headers and 304. */
export const ConditionalGet = () =>
  applyDecorators(
    WithRouteConfig({ [CONDITIONAL]: true }),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description:
        'An `ETag` of an earlier answer of this read (or several, comma-separated): 304 without a body while the answer would be the same bytes apart from `meta.tracingId`.',
    }),
    ApiResponse({
      status: 304,
      description:
        'Not Modified: the answer is the one whose ETag `If-None-Match` holds. The 200 carries the same `ETag`, `Cache-Control` and `Vary`.',
      headers: {
        ETag: {
          description: 'Strong, over the whole answer but `meta.tracingId`',
          schema: { type: 'string' },
        },
        'Cache-Control': { description: CACHE_CONTROL, schema: { type: 'string' } },
        Vary: { description: `Includes ${VARY_CREDENTIALS}`, schema: { type: 'string' } },
      },
    }),
  );

/** The strong ETag of an answer's bytes without its tracing id. */
export function etagOf(head: Buffer | string, tail: Buffer | string): string {
  return `"${createHash('sha1').update(head).update(tail).digest('base64url')}"`;
}

/** The hash state after a long, unchanging start of answers (a stored page's records), per its bytes. */
const PREFIX_STATES = new WeakMap<Buffer, { parts: Buffer[]; state: Hash }>();
/** Answers that begin with such a start: its bytes and its length. */
const KNOWN_PREFIXES = new WeakMap<Buffer, { parts: Buffer[]; length: number; last: Buffer }>();

/**
 * Tells the tagging that `answer` begins with `parts` (the last of them a buffer kept and served again,
 * like a stored page's records): the hash of that start is taken once per kept buffer and carried on
 * from a copy of its state, so a long page is not hashed again on every read. The tag is the same as
 * {@link etagOf} of the whole.
 */
export function answerStartsWith(answer: Buffer, parts: Buffer[]): void {
  const last = parts[parts.length - 1];
  KNOWN_PREFIXES.set(answer, { parts, length: parts.reduce((n, p) => n + p.length, 0), last });
}

function prefixedEtag(bytes: Buffer, head: Buffer, tail: Buffer): string {
  const known = KNOWN_PREFIXES.get(bytes);
  if (!known || head.length < known.length) return etagOf(head, tail);
  let kept = PREFIX_STATES.get(known.last);
  // The same parts, the same buffers: a state taken after other bytes is never carried on.
  if (!kept || kept.parts.length !== known.parts.length || kept.parts.some((p, i) => p !== known.parts[i])) {
    const state = createHash('sha1');
    for (const part of known.parts) state.update(part);
    kept = { parts: known.parts, state };
    PREFIX_STATES.set(known.last, kept);
  }
  const rest = head.subarray(known.length);
  return `"${kept.state.copy().update(rest).update(tail).digest('base64url')}"`;
}

/**
 * `{"data":…,"meta":{"tracingId":"<id>",…},…}` split around the id. The envelope's `meta` opens with
 * `tracingId`, and nothing after `meta` (its fields, `links`) can hold the marker outside a string, so
 * the last marker is the envelope's. Undefined when the answer is not such an envelope: it then gets no
 * ETag (never a wrong one).
 */
export function splitAnswer(bytes: Buffer, requestId: string): SplitAnswer | undefined {
  const marker = `"meta":{"tracingId":"${requestId}"`;
  const at = bytes.lastIndexOf(marker);
  if (at === -1) return undefined;
  const idStart = at + marker.length - requestId.length - 1;
  const head = bytes.subarray(0, idStart);
  const tail = bytes.subarray(idStart + Buffer.byteLength(requestId));
  return { head, tail, etag: prefixedEtag(bytes, head, tail) };
}

/** RFC 9110 §13.1.2: weak comparison, `*` matches any current answer. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return true;
  if (header.trim() === '*') return false;
  for (const tag of header.split(',')) {
    const trimmed = tag.trim();
    if ((trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === etag) return false;
  }
  return true;
}

const isConditional = (request: FastifyRequest) =>
  (request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[CONDITIONAL] === true;

/** The headers every conditional answer carries, 200 or 304; Vary keeps what CORS put there. */
function tag(reply: FastifyReply, etag: string): void {
  const vary = reply.getHeader('vary');
  void reply.headers({
    etag,
    'cache-control': CACHE_CONTROL,
    vary: vary ? `${String(vary)}, ${VARY_CREDENTIALS}` : VARY_CREDENTIALS,
  });
}

/**
 * Answers a conditional read from an answer kept earlier (its bytes and tag): a GET whose `If-None-Match`
 * holds the tag gets its 304 without the body ever being put together; otherwise the kept bytes with this
 * request's tracing id, tagged by the hook below.
 */
export function sendKeptAnswer(
  request: FastifyRequest & ConditionalRequest,
  reply: FastifyReply,
  kept: SplitAnswer,
): void {
  if (request.method === 'GET' && !noneMatch(request.headers['if-none-match'], kept.etag)) {
    tag(reply, kept.etag);
    void reply.code(304).send();
    return;
  }
  request.conditional = { etag: kept.etag };
  void reply
    .type('application/json; charset=utf-8')
    .send(Buffer.concat([kept.head, Buffer.from(String(request.id)), kept.tail]));
}

export function registerConditionalGets(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request: FastifyRequest & ConditionalRequest, reply, payload, done) => {
    const head = request.method === 'HEAD';
    if (reply.statusCode !== 200 || (!head && request.method !== 'GET') || !isConditional(request)) {
      return done(null, payload);
    }
    let etag = request.conditional?.etag;
    let body = payload;
    if (etag === undefined) {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      // Encoded once, here: the bytes hashed are the bytes sent.
      body = typeof payload === 'string' ? Buffer.from(payload) : payload;
      const split = splitAnswer(body as Buffer, String(request.id));
      if (!split) return done(null, body);
      etag = split.etag;
      request.conditional?.served?.(split);
    }
    tag(reply, etag);
    // HEAD tells the same tag but is never a 304: Fastify's HEAD route sets the length of a body it drops.
    if (head || noneMatch(request.headers['if-none-match'], etag)) return done(null, body);
    // No body: Fastify then sends no Content-Length either.
    void reply.code(304);
    done(null, null);
  });
}
