import { applyDecorators } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ReadCache } from '#libs/database';
import {
  ConditionalGet,
  type ConditionalRequest,
  type RequestWithPrincipal,
  sendKeptAnswer,
  type SplitAnswer,
  WithRouteConfig,
} from '#libs/http';

/** Fastify route config key set by {@link KeptAnswer}. */
const KEPT = 'keptAnswer';

/**
 * A page-view read whose answers are kept: a conditional GET (ETag, 304) whose served bytes are kept in
 * the read cache and served again without running the route (see {@link registerKeptAnswers}).
 *
 * Only for a read whose answer is made from nothing but the caller, its URL and rows of the caller's
 * merchant in the tables whose triggers notify the read cache (users, accounts, account_balances:
 * migration `20261123030000_read_cache_notify`), or an account's stored transactions, which move the
 * account's `transactions_version` on with every change (notified as the account's own): name the route
 * parameter that holds the account as `account`, so the answer goes with that account's notification.
 * Then the answer can only change with a change that drops it. A read that also asks the bank, the clock
 * or another table must not use it, and one served from the replica must not be kept ({@link notKept}).
 */
export const KeptAnswer = (options: { account?: string } = {}) =>
  applyDecorators(ConditionalGet(), WithRouteConfig({ [KEPT]: { account: options.account } }));

/**
 * This answer is not to be kept: it was read where a change already notified may not show yet (the
 * replica), and nothing would drop it once it did.
 */
export function notKept(reply: FastifyReply): void {
  const conditional = (reply.request as FastifyRequest & ConditionalRequest).conditional;
  if (conditional) conditional.served = undefined;
}

const bytesOf = (part: Buffer | string): Buffer =>
  typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part);

/**
 * A kept read's answer lives as the bytes it was served as (with its ETag), beside the rows it was made
 * from in the read cache, and is dropped with them when Postgres notifies a change of the merchant's.
 * While it is kept, the same read by the same kind of caller is answered from those bytes with its own
 * tracingId, before Nest: no query validation, no read, no serialisation, no hash. A preHandler hook
 * registered after the access hook, so the credentials, the kind, CORS and the rate limit are decided
 * first, as for every request; a 304 then costs little more than those, its body never put together.
 */
export function registerKeptAnswers(fastify: FastifyInstance, cache: ReadCache): void {
  fastify.addHook(
    'preHandler',
    (request: FastifyRequest & RequestWithPrincipal & ConditionalRequest, reply: FastifyReply, done) => {
      const caller = request.principal;
      const kept = request.routeOptions.config[KEPT as never] as { account?: string } | undefined;
      if (!kept || !caller || caller.kind === 'operator') return done();
      const account = kept.account && (request.params as Record<string, string>)[kept.account];
      const { merchantId } = caller;
      const stamp = cache.stampOf(merchantId);
      if (!stamp) return done();
      // A session may read only its own user: its answers are kept apart from its merchant's.
      const key = `answer:${caller.kind === 'user-session' ? caller.userId : ''}:${request.url}`;
      const answer = cache.peek<SplitAnswer>(merchantId, key);
      if (answer) return sendKeptAnswer(request, reply, answer);
      request.conditional = {
        served: (served) =>
          cache.keep(
            merchantId,
            key,
            // Copies: the parts are views of the bytes being sent, or its text.
            { head: bytesOf(served.head), tail: bytesOf(served.tail), etag: served.etag },
            stamp,
            account || undefined,
            served.head.length + served.tail.length,
          ),
      };
      done();
    },
  );
}
