import { SignedTokenCodec } from '#libs/crypto';
import { invalidRequest } from '#libs/errors';

const badCursor = () => invalidRequest([{ field: 'cursor', issue: 'must be a cursor from meta.nextCursor' }]);

/** Where an offset-paged walk of statements goes on: the next offset and the first request's filters. */
export interface StatementsPosition {
  offset: number;
  from?: string;
  before?: string;
  sort?: 'date' | '-date';
}

/**
 * Our cursors for the pass-through walks, each bound to the merchant and account and signed: the binding
 * stops a cursor from one account (or merchant) being replayed against another, and the signature means
 * only cursors we issued ever reach the upstream. Live transactions carry the upstream's own cursor;
 * statements the next offset with the first request's filters. A cursor of one walk is refused by the other.
 */
export class PagingCursorSigner {
  private readonly codec: SignedTokenCodec;

  constructor(signingSecret: string) {
    this.codec = new SignedTokenCodec(signingSecret, 'bff.paging-cursor.v1');
  }

  sign(merchantId: string, accountId: string, upstreamCursor: string): string {
    return this.codec.sign({ v: 1, m: merchantId, a: accountId, c: upstreamCursor });
  }

  /** The upstream cursor, or a 400 for anything we did not issue for this merchant and account. */
  open(cursor: string, merchantId: string, accountId: string): string {
    const payload = this.bound(cursor, merchantId, accountId);
    if (typeof payload.c !== 'string') throw badCursor();
    return payload.c;
  }

  signStatements(merchantId: string, accountId: string, position: StatementsPosition): string {
    return this.codec.sign({ v: 1, m: merchantId, a: accountId, s: position });
  }

  openStatements(cursor: string, merchantId: string, accountId: string): StatementsPosition {
    const position = this.bound(cursor, merchantId, accountId).s as StatementsPosition | undefined;
    if (!position || !Number.isSafeInteger(position.offset) || position.offset < 0) throw badCursor();
    return position;
  }

  private bound(cursor: string, merchantId: string, accountId: string): Record<string, unknown> {
    const payload = this.codec.open(cursor) as Record<string, unknown> | null;
    if (!payload || payload.v !== 1 || payload.m !== merchantId || payload.a !== accountId) throw badCursor();
    return payload;
  }
}
