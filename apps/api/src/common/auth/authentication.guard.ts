import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type Caller, currentContext } from '#libs/context';
import { SESSION_TOKEN_PREFIX } from '#libs/domain/users';
import { DomainError, ErrorCode } from '#libs/errors';
import { AUTH_METADATA, AuthKind, type RequestWithPrincipal } from '#libs/http';
import { MerchantApiKeyStrategy, OperatorStrategy, UserSessionStrategy } from './auth.strategies.js';
import { bearerToken } from './bearer.js';
import { assertSameOrigin, consoleCookie } from './console-cookie.js';
import { ConsoleSessionService } from './console-session.service.js';

const CREDENTIAL_KINDS: readonly AuthKind[] = [AuthKind.Operator, AuthKind.Merchant, AuthKind.UserSession];
type CredentialKind = typeof AuthKind.Operator | typeof AuthKind.Merchant | typeof AuthKind.UserSession;

const unauthenticated = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credentials.');

/** What each credential's passport strategy answers for a request: who it is, or a refusal thrown. */
interface Verifier {
  validate(request: FastifyRequest): Caller | Promise<Caller>;
}

/**
 * Runs before DefaultDenyGuard on every route that declares a credential kind. The token's form picks
 * the strategy (`mk_` API key, `us_` session, anything else the operator token), whatever the route
 * allows: so valid credentials of the wrong kind reach DefaultDenyGuard as a principal and get 403,
 * and invalid ones get 401 here. Without an Authorization header, the console's cookie (docs/console.md)
 * stands for the credential it was made from.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  /**
   * The strategies' own checks, called directly: passport.authenticate's per-request wrapper (a closure,
   * its callbacks and an `AuthGuard` instance per strategy) cost more than the check, and added nothing
   * a bearer token needs. The strategies stay passport strategies, registered with it.
   */
  private readonly verifiers: Record<CredentialKind, Verifier>;

  constructor(
    private readonly reflector: Reflector,
    private readonly consoleSessions: ConsoleSessionService,
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

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const kinds = this.reflector.getAllAndOverride<AuthKind[] | undefined>(AUTH_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    // Undeclared and public routes are DefaultDenyGuard's to decide; webhook routes verify signatures.
    if (!kinds?.some((k) => CREDENTIAL_KINDS.includes(k)) || kinds.includes(AuthKind.Public)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithPrincipal>();
    // An Authorization header wins over the console's cookie, whatever it holds.
    const cookie = request.headers.authorization === undefined ? consoleCookie(request.headers) : undefined;
    if (cookie !== undefined) {
      assertSameOrigin(request.method, request.headers, this.config.api.publicUrl);
      request.principal = await this.consoleSessions.resolve(cookie);
      return this.actsFor(request);
    }
    const token = bearerToken(request.headers);
    if (!token) throw unauthenticated();
    const kind = token.startsWith('mk_')
      ? AuthKind.Merchant
      : token.startsWith(SESSION_TOKEN_PREFIX)
        ? AuthKind.UserSession
        : AuthKind.Operator;
    const principal = await this.verifiers[kind].validate(request);
    if (!principal) throw unauthenticated();
    request.principal = principal;
    return this.actsFor(request);
  }

  /** Whatever runs for this request from here on (logs, upstream calls) knows who it acts for. */
  private actsFor(request: RequestWithPrincipal): true {
    const running = currentContext();
    if (running) running.caller = request.principal;
    return true;
  }
}
