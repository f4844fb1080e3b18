import { SignedTokenCodec } from '#libs/crypto';
import { publicRouteUrl } from '#libs/routes';
import { ConsentStatus } from './consent-status.js';

// Its own purpose in the MAC: a link never verifies as a callback state, nor a state as a link.
const PURPOSE = 'bff.consent-reauthorisation-link.v1';

/** The link's path under the callback route: the user's browser comes back through the same public door. */
export const REAUTHORISATION_LINK_PATH = 'reauthorise';

export interface LinkedConsent {
  merchantId: string;
  consentId: string;
}

/**
 * Our link for renewing a consent at a bank that requires the user's PSU headers: the merchant sends the
 * user's browser to it, and we ask the bank then, with the user's own address (and the login ids given
 * at creation). Signed, carrying only ids, good until the consent's expiry: whoever holds it can only send
 * the real user to their bank's page, where the bank authenticates them.
 */
export class ReauthorisationLinkSigner {
  private readonly codec: SignedTokenCodec;

  constructor(
    secret: string,
    private readonly publicUrl: string,
  ) {
    this.codec = new SignedTokenCodec(secret, PURPOSE);
  }

  url(consent: LinkedConsent, expiresAt: Date): string {
    const token = this.codec.sign({
      m: consent.merchantId,
      c: consent.consentId,
      e: Math.floor(expiresAt.getTime() / 1000),
    });
    const base = publicRouteUrl(this.publicUrl, 'consentCallback');
    return `${base}/${REAUTHORISATION_LINK_PATH}?link=${encodeURIComponent(token)}`;
  }

  /**
   * Whether the consent still waits for the renewal this link offers: offered it and AUTHORIZED, or its
   * renewal under way at the bank (the user may come back to finish it). Once renewed the offer is gone
   * (the callback clears it), and a later scan's offer is a new link: this one then has nothing to do.
   */
  static due(consent: { status: string; reauthorisationUrl: string | null }, token: string): boolean {
    if (consent.status === ConsentStatus.AwaitingReauthorisation) return true;
    if (consent.status !== ConsentStatus.Authorised || !consent.reauthorisationUrl) return false;
    return new URL(consent.reauthorisationUrl).searchParams.get('link') === token;
  }

  /** The consent the link names, or null when it is malformed, forged or past the consent's expiry. */
  verify(token: string, now = Date.now()): LinkedConsent | null {
    const { m, c, e } = (this.codec.open(token) ?? {}) as Record<string, unknown>;
    if (typeof m !== 'string' || typeof c !== 'string' || typeof e !== 'number') return null;
    if (e * 1000 <= now) return null;
    return { merchantId: m, consentId: c };
  }
}
