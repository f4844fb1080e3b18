import { describe, expect, it } from 'vitest';
import { PagingCursorSigner } from './paging-cursor.signer.js';

describe('pass-through paging cursors', () => {
  const signer = new PagingCursorSigner('signing-secret-0123456789');
  const [merchant, account, other] = ['m-1', 'a-1', 'a-2'];

  it('carries the upstream cursor, and the statements position, for the account they were issued for', () => {
    expect(signer.open(signer.sign(merchant, account, 'upstream-c'), merchant, account)).toBe('upstream-c');
    const position = { offset: 6, from: '2026-01-01T00:00:00.000Z', sort: '-date' as const };
    expect(
      signer.openStatements(signer.signStatements(merchant, account, position), merchant, account),
    ).toEqual(position);
  });

  it('refuses a cursor of another account or merchant, of the other walk, or a tampered one', () => {
    const live = signer.sign(merchant, account, 'upstream-c');
    const statements = signer.signStatements(merchant, account, { offset: 3 });
    const refused = (fn: () => unknown) =>
      expect(fn).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    refused(() => signer.open(live, merchant, other));
    refused(() => signer.open(live, 'm-2', account));
    refused(() => signer.open(statements, merchant, account));
    refused(() => signer.openStatements(live, merchant, account));
    refused(() => signer.open(`${live}x`, merchant, account));
    refused(() =>
      signer.openStatements(signer.signStatements(merchant, account, { offset: -1 }), merchant, account),
    );
    refused(() => new PagingCursorSigner('another-secret-0123456').open(live, merchant, account));
  });
});
