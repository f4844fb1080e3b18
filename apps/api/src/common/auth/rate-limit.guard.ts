import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '#libs/errors';
import type { RequestWithPrincipal } from '#libs/http';
import { RateLimiterService } from './rate-limiter.service.js';

/**
 * Per-merchant limits, after authentication and authorisation (refused requests cost nothing). A session
 * counts against its merchant and against its own user, so one busy browser cannot starve the rest.
 * The operator is not limited.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiterService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { principal } = context.switchToHttp().getRequest<RequestWithPrincipal>();
    if (!principal || principal.kind === 'operator') return true;
    const subjects = [`m:${principal.merchantId}`];
    if (principal.kind === 'user-session') subjects.push(`u:${principal.userId}`);
    const decision = await this.limiter.hit(subjects);
    const reply = context.switchToHttp().getResponse<FastifyReply>();
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
    return true;
  }
}
