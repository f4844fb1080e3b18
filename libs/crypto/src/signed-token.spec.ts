import { describe, expect, it } from 'vitest';
import { SignedTokenCodec } from './signed-token.js';

describe('SignedTokenCodec: the one signed-token format', () => {
  const cursors = new SignedTokenCodec('secret-0123456789', 'bff.paging-cursor.v1');

  it('opens what it signed, with or without a prefix', () => {
    expect(cursors.open(cursors.sign({ a: 1, b: 'x' }))).toEqual({ a: 1, b: 'x' });
    const prefixed = cursors.sign({ a: 2 }, 'us_');
    expect(prefixed.startsWith('us_')).toBe(true);
    expect(cursors.open(prefixed, 'us_')).toEqual({ a: 2 });
  });

  it('refuses a token of another purpose, another secret, another prefix, or a tampered one', () => {
    const token = cursors.sign({ a: 1 });
    expect(new SignedTokenCodec('secret-0123456789', 'bff.session-token.v1').open(token)).toBeNull();
    expect(new SignedTokenCodec('another-secret-0123', 'bff.paging-cursor.v1').open(token)).toBeNull();
    expect(cursors.open(`us_${token}`, 'us_')).toBeNull();
    const [body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ a: 2 })).toString('base64url');
    expect(cursors.open(`${forged}.${mac}`)).toBeNull();
    expect(cursors.open(`${body}.${mac}x`)).toBeNull();
    expect(cursors.open(`${body}.${mac}.extra`)).toBeNull();
  });

  it('refuses what is not a token at all', () => {
    for (const garbage of ['', 'not-a-token', '.', 'a.b', '%%%.%%%'])
      expect(cursors.open(garbage)).toBeNull();
  });
});
