import { applyDecorators, SetMetadata } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiDefaultResponse,
  ApiForbiddenResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ApiErrorResponse, SECURITY_SCHEMES } from './openapi.js';
import { mergeRouteConfig, routeConfigOf, routeHandlersOf } from './route-config.js';

/** How a route authenticates its caller (docs/api-guide.md, "Authentication, rate limits, CORS, idempotency, docs"). Every route must declare one. */
// A value object rather than an enum: the credential kinds are the Caller kinds' own strings (libs/context).
export const AuthKind = {
  Public: 'public',
  Operator: 'operator',
  Merchant: 'merchant',
  UserSession: 'user-session',
  UpstreamWebhook: 'upstream-webhook',
} as const;
export type AuthKind = (typeof AuthKind)[keyof typeof AuthKind];

export const AUTH_METADATA = 'bff:auth';

/** The Fastify route config key holding a route's declared kinds: what the access hook reads (access.hook.ts). */
export const ACCESS_CONFIG = 'access';

/**
 * Writes the kinds into the route config of a route, or of every route of a controller that does not
 * declare its own (method decorators run before the class's, so a method's own declaration is already
 * there and wins, as with Nest's metadata).
 */
const DeclareAccess =
  (kinds: readonly AuthKind[]) =>
  (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    const access = { [ACCESS_CONFIG]: kinds };
    if (descriptor) return mergeRouteConfig(descriptor.value as () => unknown, access);
    for (const handler of routeHandlersOf(target as new () => unknown)) {
      if (!(ACCESS_CONFIG in routeConfigOf(handler))) mergeRouteConfig(handler, access);
    }
  };

const SCHEME_OF: Partial<Record<AuthKind, string>> = {
  [AuthKind.Operator]: SECURITY_SCHEMES.operator,
  [AuthKind.Merchant]: SECURITY_SCHEMES.merchant,
  [AuthKind.UserSession]: SECURITY_SCHEMES.userSession,
};

const anyError = ApiDefaultResponse({
  type: ApiErrorResponse,
  description: 'Any error, in the error envelope',
});

/**
 * Declares who may call a route (or every route of a controller). The same declaration documents the
 * route's security and its authentication errors, so the OpenAPI document cannot drift from the access
 * hook, which reads the kinds from the route's config.
 */
export const Auth = (...kinds: [AuthKind, ...AuthKind[]]) => {
  const schemes = kinds.flatMap((k) => (SCHEME_OF[k] ? [SCHEME_OF[k]] : []));
  if (schemes.length === 0)
    return applyDecorators(SetMetadata(AUTH_METADATA, kinds), DeclareAccess(kinds), anyError);
  const limited = kinds.includes(AuthKind.Merchant) || kinds.includes(AuthKind.UserSession);
  return applyDecorators(
    SetMetadata(AUTH_METADATA, kinds),
    DeclareAccess(kinds),
    ...schemes.map((scheme) => ApiBearerAuth(scheme)),
    ApiUnauthorizedResponse({
      type: ApiErrorResponse,
      description: 'UNAUTHENTICATED: missing or invalid credentials',
    }),
    ApiForbiddenResponse({
      type: ApiErrorResponse,
      description: 'FORBIDDEN: valid credentials of a kind this route refuses',
    }),
    ...(limited
      ? [
          ApiTooManyRequestsResponse({
            type: ApiErrorResponse,
            description: 'RATE_LIMITED, with Retry-After',
          }),
        ]
      : []),
    anyError,
  );
};

/** Health, metrics, docs: anyone may call them. */
export const Public = () => Auth(AuthKind.Public);
