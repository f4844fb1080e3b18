import { createHash, type Hash } from 'node:crypto';
import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PartedAnswer } from './parted-answer.js';
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
    /**
     * Called with each 200 this request serves, split and tagged, unless it came from kept bytes. The parts
     * are views of what is being sent, or its text: to be copied by what keeps them.
     */
    served?: (answer: { head: Buffer | string; tail: Buffer | string; etag: string }) => void;
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

/** The hash state after the kept parts of parted answers (a stored page's records), per their last buffer. */
const KEPT_STATES = new WeakMap<Buffer, { parts: readonly Buffer[]; state: Hash }>();

/**
 * The hash of `kept` taken once per kept buffer and carried on from a copy of its state, so a long page is
 * not hashed again on every read: the same tag as {@link etagOf} of the whole.
 */
function keptState(kept: readonly Buffer[]): Hash {
  const last = kept[kept.length - 1];
  if (!last) return createHash('sha1');
  let known = KEPT_STATES.get(last);
  // The same parts, the same buffers: a state taken after other bytes is never carried on.
  if (!known || known.parts.length !== kept.length || known.parts.some((p, i) => p !== kept[i])) {
    const state = createHash('sha1');
    for (const part of kept) state.update(part);
    known = { parts: kept, state };
    KEPT_STATES.set(last, known);
  }
  return known.state.copy();
}

const ID_OPENS = '"meta":{"tracingId":"';

/** Where the envelope's tracing id is in `answer` (bytes or text): what comes before and after it. */
function aroundId<A extends Buffer | string>(answer: A, requestId: string): { head: A; tail: A } | undefined {
  const at = answer.lastIndexOf(`${ID_OPENS}${requestId}"`);
  if (at === -1) return undefined;
  // The marker's opening is ASCII: as many bytes as characters.
  const idStart = at + ID_OPENS.length;
  if (typeof answer === 'string')
    return { head: answer.slice(0, idStart) as A, tail: answer.slice(idStart + requestId.length) as A };
  return {
    head: answer.subarray(0, idStart) as A,
    tail: answer.subarray(idStart + Buffer.byteLength(requestId)) as A,
  };
}

/**
 * `{"data":…,"meta":{"tracingId":"<id>",…},…}` split around the id. The envelope's `meta` opens with
 * `tracingId`, and nothing after `meta` (its fields, `links`) can hold the marker outside a string, so
 * the last marker is the envelope's. Undefined when the answer is not such an envelope: it then gets no
 * ETag (never a wrong one). Text is hashed as its UTF-8, the bytes Node sends.
 */
export function splitAnswer<A extends Buffer | string>(
  answer: A,
  requestId: string,
): { head: A; tail: A; etag: string } | undefined {
  const split = aroundId(answer, requestId);
  return split && { ...split, etag: etagOf(split.head, split.tail) };
}

/**
 * The tag of a parted answer (the envelope's end, with the id, its `rest`: see envelopeBytes), as
 * {@link splitAnswer} tags its bytes; the split is put together only when `whole` asks for it.
 */
export function splitPartedAnswer(
  answer: PartedAnswer,
  requestId: string,
): { etag: string; whole: () => SplitAnswer } | undefined {
  const split = aroundId(answer.rest, requestId);
  if (!split) return undefined;
  const etag = `"${keptState(answer.kept).update(split.head).update(split.tail).digest('base64url')}"`;
  return {
    etag,
    whole: () => ({ head: Buffer.concat([...answer.kept, split.head]), tail: split.tail, etag }),
  };
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
 * request's tracing id. A GET's are written as the kept parts themselves, corked into one write, past
 * Fastify's sending ({@link writeKeptAnswer}); a HEAD's go through Fastify, which drops the body.
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
  const id = Buffer.from(String(request.id));
  if (request.method !== 'GET') {
    void reply.type(JSON_TYPE).send(Buffer.concat([kept.head, id, kept.tail]));
    return;
  }
  tag(reply, kept.etag);
  writeKeptAnswer(reply, [kept.head, id, kept.tail]);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A kept GET's 200, written to the socket as its parts (the kept bytes around this request's id) with the
 * headers the reply holds. Fastify sends several buffers only as a stream, and a stored page's stream
 * machinery cost a fifth of its CPU per read; a copy into one buffer cost more (issue 82). The reply is
 * hijacked, so Fastify's onSend hooks do not run for it (its onResponse hooks do): none of them changes a
 * kept GET's 200, which is already tagged, and test/api-conditional-get.e2e-spec.ts holds every kept
 * answer to the headers and bytes the route itself sends.
 */
function writeKeptAnswer(reply: FastifyReply, parts: readonly Buffer[]): void {
  const length = parts.reduce((n, part) => n + part.length, 0);
  const headers = { ...reply.getHeaders(), 'content-type': JSON_TYPE, 'content-length': String(length) };
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers as Record<string, string>);
  // One write for the headers and every part: end() uncorks.
  res.cork();
  for (const part of parts.slice(0, -1)) res.write(part);
  res.end(parts.at(-1));
}

export function registerConditionalGets(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request: FastifyRequest & ConditionalRequest, reply, payload, done) => {
    // Fastify sends a stream without a length (chunked) and HEAD's hook tells none for it: a parted
    // answer knows its own. Taken off again below when the answer is a 304.
    if (payload instanceof PartedAnswer) void reply.header('content-length', String(payload.byteLength));
    const head = request.method === 'HEAD';
    if (reply.statusCode !== 200 || (!head && request.method !== 'GET') || !isConditional(request)) {
      return done(null, payload);
    }
    let etag = request.conditional?.etag;
    if (etag === undefined) {
      if (payload instanceof PartedAnswer) {
        const split = splitPartedAnswer(payload, String(request.id));
        if (!split) return done(null, payload);
        etag = split.etag;
        // Put together only for what keeps it (a kept answer's first read), never on every read.
        if (request.conditional?.served) request.conditional.served(split.whole());
      } else {
        if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
        // Text stays text, hashed as the bytes Node writes: a buffer made of each answer only to hash and
        // send it grows V8's external memory, which starts collections of the whole heap (StoredPage).
        const split = splitAnswer(payload, String(request.id));
        if (!split) return done(null, payload);
        etag = split.etag;
        request.conditional?.served?.(split);
      }
    }
    tag(reply, etag);
    // HEAD tells the same tag but is never a 304: Fastify's HEAD route sets the length of a body it drops.
    if (head || noneMatch(request.headers['if-none-match'], etag)) return done(null, payload);
    // No body: Fastify then sends no Content-Length either.
    void reply.code(304).removeHeader('content-length');
    done(null, null);
  });
}
