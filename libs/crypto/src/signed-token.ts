import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The one signed-token format of the project: `prefix + base64url(JSON payload) + '.' +
 * base64url(HMAC-SHA256(secret, purpose + '.' + prefix + payload))`. The purpose label (and the prefix)
 * are inside the MAC, so a token made for one purpose (a paging cursor) can never pass as another's (a
 * session token, a consent state) although one SIGNING_SECRET signs them all. Opaque to clients,
 * verified without storage. `open` answers the payload, or null for anything this codec did not sign;
 * what the payload must contain (expiry included) is the caller's to check.
 */
export class SignedTokenCodec {
  constructor(
    private readonly signingSecret: string,
    private readonly purpose: string,
  ) {}

  sign(payload: object, prefix = ''): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${prefix}${body}.${this.mac(prefix + body)}`;
  }

  open(token: string, prefix = ''): unknown {
    if (!token.startsWith(prefix)) return null;
    const [body, mac, extra] = token.slice(prefix.length).split('.');
    if (!body || !mac || extra !== undefined) return null;
    const expected = Buffer.from(this.mac(prefix + body), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      return payload !== null && typeof payload === 'object' ? payload : null;
    } catch {
      return null;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.signingSecret).update(`${this.purpose}.${body}`).digest('base64url');
  }
}
