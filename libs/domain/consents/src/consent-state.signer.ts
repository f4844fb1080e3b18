import { randomBytes } from 'node:crypto';
import { SignedTokenCodec } from '#libs/crypto';

/** What a verified `state` names: the consent awaiting this callback and the nonce it was issued with. */
export interface ConsentState {
  merchantId: string;
  consentId: string;
  nonce: string;
}

/** How long the PSU may take at the bank before the callback is refused (the consent stays awaiting). */
export const CONSENT_STATE_TTL_SECONDS = 3600;

// The purpose label is in the MAC input: the same SIGNING_SECRET signs session tokens and cursors, and
// no kind of token may ever verify as another.
const PURPOSE = 'bff.consent-state.v1';

/**
 * The signed `state` of the redirect flow (SignedTokenCodec: base64url(JSON { m, c, n, e }) + "." +
 * HMAC). The signature proves we issued it, `e` bounds its life, and the nonce (stored on the consent and
 * cleared by the first callback) makes it single use. It carries no secret, only ids.
 */
export class ConsentStateSigner {
  private readonly codec: SignedTokenCodec;

  constructor(secret: string) {
    this.codec = new SignedTokenCodec(secret, PURPOSE);
  }

  static newNonce(): string {
    return randomBytes(24).toString('base64url');
  }

  sign(state: ConsentState, now = Date.now(), ttlSeconds = CONSENT_STATE_TTL_SECONDS): string {
    return this.codec.sign({
      m: state.merchantId,
      c: state.consentId,
      n: state.nonce,
      e: Math.floor(now / 1000) + ttlSeconds,
    });
  }

  /**
   * The state's contents, or null when it is malformed, forged or expired (one answer for every cause).
   * `ignoreExpiry` is for a re-authorisation's return: the upstream forwards the state issued at creation,
   * so it proves only whose consent this is; the single-use proof there is the upstream's own state.
   */
  verify(token: string, now = Date.now(), { ignoreExpiry = false } = {}): ConsentState | null {
    const { m, c, n, e } = (this.codec.open(token) ?? {}) as Record<string, unknown>;
    if (typeof m !== 'string' || typeof c !== 'string' || typeof n !== 'string' || typeof e !== 'number')
      return null;
    if (!ignoreExpiry && e * 1000 <= now) return null;
    return { merchantId: m, consentId: c, nonce: n };
  }
}
