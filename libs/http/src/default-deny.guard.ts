import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError, ErrorCode } from '#libs/errors';
import { AUTH_METADATA, AuthKind } from './auth.decorator.js';
import type { RequestWithPrincipal } from './principal.js';

/**
 * The global guard: a route that declares no authentication is refused, so a forgotten decorator fails
 * closed. Routes that declare a non-public kind are let through here only when a strategy guard has run
 * first and set `request.principal`: of an allowed kind, or 403 (valid credentials, wrong kind).
 */
@Injectable()
export class DefaultDenyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const kinds = this.reflector.getAllAndOverride<AuthKind[] | undefined>(AUTH_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!kinds || kinds.length === 0) {
      throw new DomainError(
        ErrorCode.UNAUTHENTICATED,
        'This route declares no authentication and is closed.',
      );
    }
    // The upstream's webhooks carry no credentials: the receiver verifies their signature over the raw
    // bytes before it reads anything else (and refuses, 401, what is not signed by a registered secret).
    if (kinds.includes(AuthKind.Public) || kinds.includes(AuthKind.UpstreamWebhook)) return true;
    const { principal } = context.switchToHttp().getRequest<RequestWithPrincipal>();
    if (principal && kinds.includes(principal.kind)) return true;
    if (principal) throw new DomainError(ErrorCode.FORBIDDEN, 'These credentials may not call this route.');
    throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credentials.');
  }
}
