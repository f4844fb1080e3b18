import { describe, expect, it } from 'vitest';
import type { AppConfig } from '#libs/config';
import { ConsoleSessionService } from './console-session.service.js';
import type { MerchantKeyVerifier } from './merchant-key.verifier.js';
import type { PrincipalCache } from './principal-cache.js';

/** Operator sessions need neither the database nor the cache: only the config. */
const sessionsWith = (adminToken: string) =>
  new ConsoleSessionService(
    { api: { adminToken }, crypto: { signingSecret: 'signing-secret-0123456789' } } as AppConfig,
    undefined as unknown as MerchantKeyVerifier,
    undefined as unknown as PrincipalCache,
  );

describe('ConsoleSessionService: the operator', () => {
  it('signs in with the operator token, for 8 hours at most, and never holds the token', async () => {
    const sessions = sessionsWith('operator-token-0123456789');
    const session = await sessions.signIn({ operatorToken: 'operator-token-0123456789' });
    expect(session.token).not.toContain('operator-token');
    expect(Buffer.from(session.token.split('.')[0], 'base64url').toString()).not.toContain('operator-token');
    expect(session.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 8 * 3600 * 1000);
    await expect(sessions.resolve(session.token)).resolves.toEqual({ kind: 'operator' });
    await expect(sessions.signIn({ operatorToken: 'wrong' })).rejects.toThrow(/invalid credentials/);
  });

  it('ends every operator session when the operator token changes', async () => {
    const session = await sessionsWith('operator-token-0123456789').signIn({
      operatorToken: 'operator-token-0123456789',
    });
    await expect(sessionsWith('another-token-0123456789').resolve(session.token)).rejects.toThrow(
      /invalid credentials/,
    );
  });

  it('refuses what it did not sign', async () => {
    const sessions = sessionsWith('operator-token-0123456789');
    for (const garbage of ['', 'x.y', 'mk_notakey'])
      await expect(sessions.resolve(garbage)).rejects.toThrow(/invalid credentials/);
  });
});
