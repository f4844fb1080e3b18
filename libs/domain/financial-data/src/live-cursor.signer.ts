import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError, ErrorCode } from '#libs/errors';

interface LiveCursorPayload {
  v: 1;
  m: string;
  a: string;
  c: string;
}

const badCursor = () =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', {
    details: [{ field: 'cursor', issue: 'must be a cursor from meta.nextCursor' }],
  });

/**
 * Our cursor for the live transactions walk: the upstream's cursor, bound to the merchant and account and
 * signed. The binding stops a cursor from one account (or merchant) being replayed against another, and
 * the signature means only cursors we issued ever reach the upstream. The key is derived from the signing
 * secret with a purpose label, so a session token's MAC can never pass as a cursor's or the reverse.
 */
export class LiveCursorSigner {
  private readonly key: Buffer;

  constructor(signingSecret: string) {
    this.key = createHmac('sha256', signingSecret).update('bff:live-transactions-cursor:v1').digest();
  }

  sign(merchantId: string, accountId: string, upstreamCursor: string): string {
    const payload: LiveCursorPayload = { v: 1, m: merchantId, a: accountId, c: upstreamCursor };
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The upstream cursor, or a 400 for anything we did not issue for this merchant and account. */
  open(cursor: string, merchantId: string, accountId: string): string {
    const [body, mac, extra] = cursor.split('.');
    if (!body || !mac || extra !== undefined) throw badCursor();
    const expected = Buffer.from(this.mac(body), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badCursor();
    let payload: Partial<LiveCursorPayload>;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<LiveCursorPayload>;
    } catch {
      throw badCursor();
    }
    if (
      payload.v !== 1 ||
      payload.m !== merchantId ||
      payload.a !== accountId ||
      typeof payload.c !== 'string'
    )
      throw badCursor();
    return payload.c;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
