import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AuthKind } from './auth.decorator.js';

/** Who is calling, as the authentication strategies establish it; the only identity controllers see. */
export interface Principal {
  kind: AuthKind.Operator | AuthKind.Merchant | AuthKind.UserSession;
  merchantId?: string;
  userId?: string;
  apiKeyId?: string;
}

export interface RequestWithPrincipal {
  principal?: Principal;
}

/** The authenticated caller of this request (set by the global authentication guard). */
export const Principal = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const principal = context.switchToHttp().getRequest<RequestWithPrincipal>().principal;
  // A route reachable without a principal would be a wiring bug; failing loudly beats a silent undefined.
  if (!principal) throw new Error('@Principal() used on a route without an authenticated principal');
  return principal;
});

/** The request's tracingId (the accepted or generated request id), for `meta.tracingId`. */
export const TracingId = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  String(context.switchToHttp().getRequest<{ id: string }>().id),
);
