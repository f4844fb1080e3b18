import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type Caller, currentContext } from '#libs/context';
import { MerchantRepository } from '#libs/domain/merchants';
import { SESSION_TOKEN_PREFIX } from '#libs/domain/users';
import { DomainError, ErrorCode } from '#libs/errors';
import { type AccessPolicy, AuthKind, type RequestWithPrincipal } from '#libs/http';
import { MerchantApiKeyStrategy, OperatorStrategy, UserSessionStrategy } from './auth.strategies.js';
import { bearerToken } from './bearer.js';
import { assertSameOrigin, consoleCookie } from './console-cookie.js';
import { ConsoleSessionService } from './console-session.service.js';
import { allowMerchantOrigin, isMerchantPath } from './merchant-cors.js';
import { RateLimiterService } from './rate-limiter.service.js';

type CredentialKind = typeof AuthKind.Operator | typeof AuthKind.Merchant | typeof AuthKind.UserSession;

/** What each credential's passport strategy answers for a request: who it is, or a refusal thrown. */
interface Verifier {
  validate(request: FastifyRequest): Caller | Promise<Caller>;
}

/**
 * The api's side of the access hook (libs/http `registerAccess`, which checks the caller's kind against
 * the route's): whose credentials a request carries, then its merchant's CORS and rate limit.
 */
@Injectable()
export class RequestAccessService implements AccessPolicy {
  /**
   * The strategies' own checks, called directly: passport.authenticate's per-request wrapper (a closure,
   * its callbacks and an `AuthGuard` instance per strategy) cost more than the check, and added nothing
   * a bearer token needs. The strategies stay passport strategies, registered with it.
   */
  private readonly verifiers: Record<CredentialKind, Verifier>;

  constructor(
    private readonly consoleSessions: ConsoleSessionService,
    private readonly merchants: MerchantRepository,
    private readonly limiter: RateLimiterService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    operator: OperatorStrategy,
    merchant: MerchantApiKeyStrategy,
    userSession: UserSessionStrategy,
  ) {
    this.verifiers = {
      [AuthKind.Operator]: operator,
      [AuthKind.Merchant]: merchant,
      [AuthKind.UserSession]: userSession,
    };
  }

  /**
   * The token's form picks the strategy (`mk_` API key, `us_` session, anything else the operator
   * token), whatever the route allows: valid credentials of the wrong kind name a caller (and get 403),
   * invalid ones are refused here (401). Without an Authorization header, the console's cookie
   * (docs/console.md) stands for the credential it was made from.
   */
  async authenticate(request: FastifyRequest): Promise<Caller | undefined> {
    // An Authorization header wins over the console's cookie, whatever it holds.
    const cookie = request.headers.authorization === undefined ? consoleCookie(request.headers) : undefined;
    let caller: Caller | undefined;
    if (cookie !== undefined) {
      assertSameOrigin(request.method, request.headers, this.config.api.publicUrl);
      caller = await this.consoleSessions.resolve(cookie);
    } else {
      const token = bearerToken(request.headers);
      if (!token) return undefined;
      const kind = token.startsWith('mk_')
        ? AuthKind.Merchant
        : token.startsWith(SESSION_TOKEN_PREFIX)
          ? AuthKind.UserSession
          : AuthKind.Operator;
      // A strategy that answers no caller refuses the token: the access hook answers 401.
      caller = (await this.verifiers[kind].validate(request)) ?? undefined;
    }
    // Whatever runs for this request from here on (logs, upstream calls) knows who it acts for.
    const running = currentContext();
    if (running && caller) running.caller = caller;
    return caller;
  }

  /**
   * CORS headers on a /v1 answer when the caller's own merchant lists the request's origin, then the
   * merchant's limit (a session counts against its merchant and against its own user, so one busy
   * browser cannot starve the rest). The operator is not limited. Refused requests never get here, so
   * they cost the limit nothing.
   */
  async admit(request: FastifyRequest & RequestWithPrincipal, reply: FastifyReply): Promise<void> {
    const caller = request.principal;
    if (!caller || caller.kind === 'operator') return;
    const origin = request.headers.origin;
    // Most requests (servers, no Origin) skip the origin check.
    if (typeof origin === 'string' && isMerchantPath(request.url)) {
      await allowMerchantOrigin(this.merchants, request, reply, origin, caller.merchantId);
    }
    const subjects = [`m:${caller.merchantId}`];
    if (caller.kind === 'user-session') subjects.push(`u:${caller.userId}`);
    const decision = await this.limiter.hit(subjects);
    void reply.headers({
      'x-ratelimit-limit': String(decision.limit),
      'x-ratelimit-remaining': String(decision.remaining),
      'x-ratelimit-reset': String(decision.resetSeconds),
    });
    if (!decision.allowed) {
      throw new DomainError(ErrorCode.RATE_LIMITED, 'Too many requests; retry after the Retry-After delay.', {
        retryAfterSeconds: decision.resetSeconds,
      });
    }
  }
}
