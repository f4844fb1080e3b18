import { SignedTokenCodec } from '#libs/crypto';

/**
 * User session tokens: `us_` + the project's signed-token format (SignedTokenCodec, purpose
 * `bff.session-token.v1`). Opaque to the browser, verifiable without a database read, short-lived. The
 * MAC covers the purpose and the `us_` prefix, so a token signed for another purpose with the same secret
 * (a consent `state`, a cursor) can never pass as one.
 */
export const SESSION_TOKEN_PREFIX = 'us_';

export interface SessionClaims {
  merchantId: string;
  userId: string;
  /** Expiry, in seconds since the epoch. */
  expiresAt: number;
}

interface Payload {
  v: 1;
  m: string;
  u: string;
  exp: number;
}

const codec = (secret: string) => new SignedTokenCodec(secret, 'bff.session-token.v1');

export function signSessionToken(secret: string, claims: SessionClaims): string {
  const payload: Payload = { v: 1, m: claims.merchantId, u: claims.userId, exp: claims.expiresAt };
  return codec(secret).sign(payload, SESSION_TOKEN_PREFIX);
}

/** Mints a token valid for `ttlSeconds` from `now`. */
export function mintSessionToken(
  secret: string,
  subject: { merchantId: string; userId: string },
  ttlSeconds: number,
  now = new Date(),
): { token: string; expiresAt: Date } {
  const expiresAt = Math.floor(now.getTime() / 1000) + ttlSeconds;
  return {
    token: signSessionToken(secret, { ...subject, expiresAt }),
    expiresAt: new Date(expiresAt * 1000),
  };
}

/** The claims of a well-signed, unexpired token, or null; never says which check failed. */
export function verifySessionToken(secret: string, token: string, now = new Date()): SessionClaims | null {
  if (token.length > 1024) return null;
  const payload = codec(secret).open(token, SESSION_TOKEN_PREFIX) as Partial<Payload> | null;
  if (!payload || payload.v !== 1 || typeof payload.m !== 'string' || typeof payload.u !== 'string')
    return null;
  if (typeof payload.exp !== 'number' || payload.exp * 1000 <= now.getTime()) return null;
  return { merchantId: payload.m, userId: payload.u, expiresAt: payload.exp };
}
