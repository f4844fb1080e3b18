import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '#libs/context';
import { DomainError, ErrorCode } from '#libs/errors';
import type { AppLogger } from '#libs/observability';
import { ACCESS_CONFIG, AuthKind } from './auth.decorator.js';
import { sendError } from './http-error.filter.js';
import type { RequestWithPrincipal } from './principal.js';

/** What an app knows of credentials: the access hook asks it, in this order, for every guarded request. */
export interface AccessPolicy {
  /**
   * The caller the request's credentials name, of whatever kind they are (the route's kinds are the
   * hook's to check); undefined when it carries none. Invalid credentials throw (401).
   */
  authenticate(request: FastifyRequest): Caller | undefined | Promise<Caller | undefined>;
  /** Whatever else lets an authorised caller in (CORS headers, a rate limit): throws to refuse. */
  admit?(request: FastifyRequest & RequestWithPrincipal, reply: FastifyReply): void | Promise<void>;
}

const unauthenticated = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credentials.');

/**
 * Who may call each route, decided once per request before Nest runs the handler (and before a kept
 * answer is served, which never reaches Nest): the kinds `@Auth` declared in the route's config. A route
 * that declares none is refused, so a forgotten decorator fails closed; public and webhook routes (the
 * receiver verifies signatures) go on; any other needs credentials naming a caller of a declared kind:
 * none or invalid is 401, a valid one of another kind 403. Then the policy admits the caller, whose
 * `request.principal` is set for everything after (the `@Tenant()` parameter, logs, the audit log).
 *
 * A preHandler hook: after the body is read and the request's context entered, as Nest's guards were.
 * Routes Fastify answers itself (not found) pass, as they have nothing to guard.
 */
export function registerAccess(fastify: FastifyInstance, logger: AppLogger, policy: AccessPolicy): void {
  // A callback hook: the routes that need no credentials (health, docs, webhooks) go on without a promise.
  fastify.addHook('preHandler', (request: FastifyRequest & RequestWithPrincipal, reply, done) => {
    if (request.is404) return done();
    const kinds = request.routeOptions.config[ACCESS_CONFIG as never] as readonly AuthKind[] | undefined;
    if (kinds?.includes(AuthKind.Public) || kinds?.includes(AuthKind.UpstreamWebhook)) return done();
    letIn(request, reply, kinds, policy).then(
      () => done(),
      // Answered here: the request goes no further (a callback hook that replied does not call done).
      (error: unknown) => sendError(logger, error, request, reply),
    );
  });
}

async function letIn(
  request: FastifyRequest & RequestWithPrincipal,
  reply: FastifyReply,
  kinds: readonly AuthKind[] | undefined,
  policy: AccessPolicy,
): Promise<void> {
  if (!kinds || kinds.length === 0) {
    throw new DomainError(ErrorCode.UNAUTHENTICATED, 'This route declares no authentication and is closed.');
  }
  const caller = await policy.authenticate(request);
  if (!caller) throw unauthenticated();
  if (!kinds.includes(caller.kind)) {
    throw new DomainError(ErrorCode.FORBIDDEN, 'These credentials may not call this route.');
  }
  request.principal = caller;
  await policy.admit?.(request, reply);
}

/** The route config of a route registered outside Nest's controllers that anyone may call. */
export const PUBLIC_ROUTE = { [ACCESS_CONFIG]: [AuthKind.Public] } as const;

/**
 * Declares public the routes registered outside Nest's controllers (static files, the API document's
 * viewer) that `which` picks, in `scope` and the scopes registered in it from now on: they have no
 * `@Auth`, and would be closed. A route that declares its own access keeps it.
 */
export function declarePublicRoutes(
  scope: FastifyInstance,
  which: (url: string) => boolean = () => true,
): void {
  scope.addHook('onRoute', (route) => {
    if (which(route.url) && !(ACCESS_CONFIG in (route.config ?? {}))) {
      route.config = { ...route.config, ...PUBLIC_ROUTE };
    }
  });
}
