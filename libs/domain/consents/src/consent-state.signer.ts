import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a verified `state` names: the consent awaiting this callback and the nonce it was issued with. */
export interface ConsentState {
  merchantId: string;
  consentId: string;
  nonce: string;
}

/** How long the PSU may take at the bank before the callback is refused (the consent stays awaiting). */
export const CONSENT_STATE_TTL_SECONDS = 3600;

// A purpose label in the MAC input: the same SIGNING_SECRET signs session tokens, and neither kind of
// token may ever verify as the other.
const PURPOSE = 'bff.consent-state.v1';

/**
 * The signed `state` of the redirect flow: base64url(JSON { m, c, n, e }) + "." + HMAC-SHA256. The
 * signature proves we issued it, `e` bounds its life, and the nonce (stored on the consent and cleared by
 * the first callback) makes it single use. It carries no secret, only ids.
 */
export class ConsentStateSigner {
  constructor(private readonly secret: string) {}

  static newNonce(): string {
    return randomBytes(24).toString('base64url');
  }

  sign(state: ConsentState, now = Date.now(), ttlSeconds = CONSENT_STATE_TTL_SECONDS): string {
    const payload = Buffer.from(
      JSON.stringify({
        m: state.merchantId,
        c: state.consentId,
        n: state.nonce,
        e: Math.floor(now / 1000) + ttlSeconds,
      }),
      'utf8',
    ).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /**
   * The state's contents, or null when it is malformed, forged or expired (one answer for every cause).
   * `ignoreExpiry` is for a re-authorisation's return: the upstream forwards the state issued at creation,
   * so it proves only whose consent this is; the single-use proof there is the upstream's own state.
   */
  verify(token: string, now = Date.now(), { ignoreExpiry = false } = {}): ConsentState | null {
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return null;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(payload), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    const { m, c, n, e } = (parsed ?? {}) as Record<string, unknown>;
    if (typeof m !== 'string' || typeof c !== 'string' || typeof n !== 'string' || typeof e !== 'number')
      return null;
    if (!ignoreExpiry && e * 1000 <= now) return null;
    return { merchantId: m, consentId: c, nonce: n };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(`${PURPOSE}.${payload}`).digest('base64url');
  }
}
