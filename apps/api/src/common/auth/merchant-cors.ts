import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MerchantRepository } from '#libs/domain/merchants';
import { DomainError, ErrorCode } from '#libs/errors';
import { mapError } from '#libs/http';

/** Only the merchant API is meant for browsers; operator, health and docs routes never answer CORS. */
export const isMerchantPath = (url: string) =>
  url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');

/**
 * `/v1/me` is readable from any origin: it tells a page which origins its merchant allows, so a page on
 * another one (`<bff-connect>`) can say so in words instead of failing on CORS. It answers the caller's
 * own identity and its merchant's origins (public sites, no secret), to whoever holds its credential.
 */
const isOpenPath = (url: string) => url === '/v1/me' || url.startsWith('/v1/me?');

export const CORS_ALLOWED_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID, X-Request-Id';
const CORS_EXPOSED_HEADERS =
  'ETag, Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
const CORS_METHODS = 'GET, POST, PUT, PATCH, DELETE';

/**
 * Preflights carry no credentials, so the merchant is unknown: an origin listed by any enabled merchant
 * may preflight /v1. The real request then gets CORS headers only if its own merchant lists the origin
 * ({@link allowMerchantOrigin}), so a preflight alone never lets a browser read another merchant's answer.
 * A 401 has no merchant either (the credential is missing, expired or revoked): it gets the headers by
 * the preflight's rule, so a page can read why it was refused and renew its session, instead of seeing a
 * network error. The 401 says nothing of any merchant.
 */
export function registerCorsPreflight(fastify: FastifyInstance, merchants: () => MerchantRepository): void {
  // A callback hook: every request passes here, and only a preflight waits for anything.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const origin = request.headers.origin;
    if (
      request.method !== 'OPTIONS' ||
      typeof origin !== 'string' ||
      request.headers['access-control-request-method'] === undefined ||
      !isMerchantPath(request.url)
    ) {
      return done();
    }
    // Answered either way: the request goes no further.
    preflight(request, reply, origin, merchants).catch((error: Error) => done(error));
  });
  // Every answer passes here and nearly none is a 401 from a browser: those go on at once, without a
  // promise; only such a 401 waits for the origin check.
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    const origin = request.headers.origin;
    if (
      reply.statusCode !== 401 ||
      typeof origin !== 'string' ||
      !isMerchantPath(request.url) ||
      reply.hasHeader('access-control-allow-origin')
    ) {
      return done(null, payload);
    }
    void reply.header('vary', 'Origin');
    const allowed = isOpenPath(request.url)
      ? Promise.resolve(true)
      : merchants().anyMerchantAllowsOrigin(origin);
    allowed.then(
      (yes) => {
        if (yes) {
          void reply.headers({
            'access-control-allow-origin': origin,
            'access-control-expose-headers': CORS_EXPOSED_HEADERS,
          });
        }
        done(null, payload);
      },
      (error: Error) => done(error),
    );
  });
}

/** A preflight's answer: 204 with the CORS headers, or 403 when no merchant lists the origin. */
async function preflight(
  request: FastifyRequest,
  reply: FastifyReply,
  origin: string,
  merchants: () => MerchantRepository,
): Promise<void> {
  if (!isOpenPath(request.url) && !(await merchants().anyMerchantAllowsOrigin(origin))) {
    const mapped = mapError(
      new DomainError(ErrorCode.FORBIDDEN, 'This origin is not allowed to call the API.'),
      String(request.id),
    );
    void reply.code(mapped.status).header('vary', 'Origin').send(mapped.body);
    return;
  }
  void reply
    .code(204)
    .headers({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': CORS_METHODS,
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': '600',
      vary: 'Origin',
    })
    .send();
}

/**
 * CORS headers on a /v1 answer only when the caller's own merchant lists the request's origin. A foreign
 * origin is not refused: CORS is the browser's to enforce; without the headers it will not let the page
 * read the answer.
 */
export async function allowMerchantOrigin(
  merchants: MerchantRepository,
  request: FastifyRequest,
  reply: FastifyReply,
  origin: string,
  merchantId: string,
): Promise<void> {
  void reply.header('vary', 'Origin');
  const open = isOpenPath(request.url);
  if (open || (await merchants.frontendOriginsOf(merchantId))?.frontendOrigins.includes(origin)) {
    void reply.headers({
      'access-control-allow-origin': origin,
      'access-control-expose-headers': CORS_EXPOSED_HEADERS,
    });
  }
}
