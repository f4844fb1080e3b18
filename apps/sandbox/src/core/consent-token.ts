import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Consent tokens are signed and self-describing (a JWT, HS256), so a consent the BFF holds survives a
 * sandbox restart: the token alone says which consent, user, application and institution it is for,
 * and until when. The real service's tokens are JWTs too.
 */
export interface ConsentTokenClaims {
  /** consent id */
  sub: string;
  /** user uuid */
  uid: string;
  /** applicationUserId, when the user has one */
  aui?: string;
  /** application the consent belongs to */
  app: string;
  /** institution id */
  ins: string;
  /** consent kind */
  knd: 'ACCOUNT' | 'PAYMENT' | 'VRP_SWEEPING';
  /** feature scope */
  scp: string[];
  /** issued at, authorised at, expires at: seconds since the epoch (sandbox clock) */
  iat: number;
  exp: number;
  /** transactionFrom / transactionTo, ISO strings */
  tf?: string;
  tt?: string;
  /** Payment and VRP consents: their kind-specific details (control parameters, payee, …). */
  det?: Record<string, unknown>;
  /** Which authorisation of the consent this is (0 first, +1 per re-authorisation): the newest token wins. */
  gen: number;
  /** Unique per token: two authorisations in the same second still give different tokens. */
  jti: string;
  /** The sandbox process that issued it: only tokens of an earlier process may re-create their consent. */
  bid: string;
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export class ConsentTokenCodec {
  private readonly key: Buffer;

  /** The signing key derives from the control-API token: changing it invalidates outstanding tokens. */
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('sandbox-consent-token-v1').digest();
  }

  sign(claims: ConsentTokenClaims): string {
    const body = `${HEADER}.${b64(JSON.stringify(claims))}`;
    return `${body}.${b64(createHmac('sha256', this.key).update(body).digest())}`;
  }

  /** The claims when the signature holds; undefined for anything else (expiry is checked by the caller). */
  verify(token: string): ConsentTokenClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
    const expected = createHmac('sha256', this.key).update(`${parts[0]}.${parts[1]}`).digest();
    const given = Buffer.from(parts[2], 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as ConsentTokenClaims;
    } catch {
      return undefined;
    }
  }
}
