import { SetMetadata } from '@nestjs/common';

/** How a route authenticates its caller (API.md, "Authentication"). Every route must declare one. */
export enum AuthKind {
  Public = 'public',
  Operator = 'operator',
  Merchant = 'merchant',
  UserSession = 'user-session',
  UpstreamWebhook = 'upstream-webhook',
}

export const AUTH_METADATA = 'bff:auth';

/** Declares who may call a route (or every route of a controller). */
export const Auth = (...kinds: [AuthKind, ...AuthKind[]]) => SetMetadata(AUTH_METADATA, kinds);

/** Health, metrics, docs: anyone may call them. */
export const Public = () => Auth(AuthKind.Public);
