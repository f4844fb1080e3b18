import { DomainError, ErrorCode } from '#libs/errors';

/**
 * Who a request (or a job acting for someone) acts for, as authentication established it. The one
 * identity the domain sees: a service that reads tenant data takes a {@link TenantCaller} first, so a
 * query without the merchant's id cannot be written. The kinds' strings are the API's own (`/v1/me`).
 */
export type Caller = OperatorCaller | MerchantCaller | SessionCaller;

/** The platform operator (ADMIN_TOKEN): no tenant. */
export interface OperatorCaller {
  readonly kind: 'operator';
  /** The web console's session the operator acts through, when it is one (docs/console.md). */
  readonly consoleSessionId?: string;
}

/** A merchant backend's API key: any of the merchant's users. */
export interface MerchantCaller {
  readonly kind: 'merchant';
  readonly merchantId: string;
  readonly apiKeyId: string;
  /** Present on both tenant kinds so `caller.userId` reads as "only this user's", undefined here. */
  readonly userId?: undefined;
  /** When the key expires (ms since the epoch), if it does: long-lived access (a stream) ends then. */
  readonly validUntil?: number;
  /** The web console's session made from the key, when the request came with its cookie: a sign-out ends it. */
  readonly consoleSessionId?: string;
}

/** A merchant frontend's session token: one user of one merchant, and nothing else. */
export interface SessionCaller {
  readonly kind: 'user-session';
  readonly merchantId: string;
  readonly userId: string;
  /** When the token expires (ms since the epoch): long-lived access (a stream) ends then. */
  readonly validUntil?: number;
}

export type TenantCaller = MerchantCaller | SessionCaller;

/**
 * The one check that a caller may act for `userId`: a merchant for any of its users (the tenant query
 * that follows still carries its merchant id), a session only for its own user. Anything else reads as
 * a user that does not exist, so a session learns nothing about other users.
 */
export function assertActsFor(caller: TenantCaller, userId: string): void {
  if (caller.kind === 'user-session' && caller.userId !== userId) {
    throw new DomainError(ErrorCode.NOT_FOUND, 'User not found.');
  }
}
