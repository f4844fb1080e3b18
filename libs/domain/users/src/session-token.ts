import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * User session tokens: `us_` + base64url(JSON payload) + '.' + base64url(HMAC-SHA256). Opaque to the
 * browser, verifiable without a database read, short-lived. The HMAC covers the `us_` prefix too, so a
 * signature made for another purpose with the same secret (the consent `state`) can never pass as one.
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

function sign(secret: string, body: string): Buffer {
  return createHmac('sha256', secret).update(`${SESSION_TOKEN_PREFIX}${body}`).digest();
}

export function signSessionToken(secret: string, claims: SessionClaims): string {
  const payload: Payload = { v: 1, m: claims.merchantId, u: claims.userId, exp: claims.expiresAt };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${SESSION_TOKEN_PREFIX}${body}.${sign(secret, body).toString('base64url')}`;
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
  if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 1024) return null;
  const [body, signature, ...rest] = token.slice(SESSION_TOKEN_PREFIX.length).split('.');
  if (!body || !signature || rest.length > 0) return null;
  const expected = sign(secret, body);
  const actual = Buffer.from(signature, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  let payload: Partial<Payload>;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<Payload>;
  } catch {
    return null;
  }
  if (payload.v !== 1 || typeof payload.m !== 'string' || typeof payload.u !== 'string') return null;
  if (typeof payload.exp !== 'number' || payload.exp * 1000 <= now.getTime()) return null;
  return { merchantId: payload.m, userId: payload.u, expiresAt: payload.exp };
}
