import { describe, expect, it } from 'vitest';
import type { AppConfig } from '#libs/config';
import { captureLogger } from '#libs/testing';
import { ConsentTokenVault } from './consent-token.vault.js';

const key = (id: string, byte: number) => ({ id, key: Buffer.alloc(32, byte) });
const vaultWith = (keys: ReturnType<typeof key>[], logger = captureLogger('vault').logger) =>
  new ConsentTokenVault({ crypto: { encryptionKeys: keys } } as unknown as AppConfig, logger);

describe('ConsentTokenVault', () => {
  it('opens what it sealed, for the same consent only', () => {
    const vault = vaultWith([key('k1', 1)]);
    const sealed = vault.seal('consent-token', 'consent-1');
    expect(sealed.tokenCiphertext).not.toContain('consent-token');
    expect(vault.open(sealed, 'consent-1')).toBe('consent-token');
    expect(() => vault.open(sealed, 'consent-2')).toThrow(
      expect.objectContaining({ code: 'CONSENT_NOT_AUTHORISED' }),
    );
  });

  it('turns a token sealed with a key no longer configured into a 409 and an error log, not a 500', () => {
    const sealed = vaultWith([key('old', 1)]).seal('consent-token', 'consent-1');
    const logs = captureLogger('vault');
    const rotated = vaultWith([key('new', 2)], logs.logger);
    expect(() => rotated.open(sealed, 'consent-1')).toThrow(
      expect.objectContaining({ code: 'CONSENT_NOT_AUTHORISED', status: 409 }),
    );
    expect(logs.text()).toContain('is its key still in ENCRYPTION_KEYS');
    expect(logs.text()).not.toContain('consent-token');
  });
});
