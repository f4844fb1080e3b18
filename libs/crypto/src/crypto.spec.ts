import { describe, expect, it } from 'vitest';
import { apiKeyPrefix, generateApiKey, hashApiKey, verifyApiKey } from './api-key.js';
import { DecryptionError, SecretBox } from './secret-box.js';

const key = (id: string, fill: number) => ({ id, key: Buffer.alloc(32, fill) });

describe('SecretBox', () => {
  it('round-trips and never produces the same ciphertext twice', () => {
    const box = new SecretBox([key('k1', 1)]);
    const a = box.seal('consent-token', 'consent:1');
    const b = box.seal('consent-token', 'consent:1');
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.ciphertext).not.toContain('consent-token');
    expect(box.open(a, 'consent:1')).toBe('consent-token');
  });

  it('refuses a ciphertext moved to another row, or tampered with', () => {
    const box = new SecretBox([key('k1', 1)]);
    const sealed = box.seal('consent-token', 'consent:1');
    expect(() => box.open(sealed, 'consent:2')).toThrow(DecryptionError);
    const raw = Buffer.from(sealed.ciphertext, 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open({ ...sealed, ciphertext: raw.toString('base64') }, 'consent:1')).toThrow(
      DecryptionError,
    );
  });

  it('rotates: new key seals, old key still opens, and old values are flagged for re-sealing', () => {
    const old = new SecretBox([key('k1', 1)]).seal('secret', 'ctx');
    const rotated = new SecretBox([key('k2', 2), key('k1', 1)]);
    expect(rotated.open(old, 'ctx')).toBe('secret');
    expect(rotated.needsRotation(old)).toBe(true);
    const fresh = rotated.seal('secret', 'ctx');
    expect(fresh.keyId).toBe('k2');
    expect(rotated.needsRotation(fresh)).toBe(false);
    expect(() => new SecretBox([key('k2', 2)]).open(old, 'ctx')).toThrow(/Unknown encryption key id k1/);
  });
});

describe('API keys', () => {
  it('are random, carry a public prefix, and verify only against their own hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).toMatch(/^mk_[A-Za-z0-9_-]{32}$/);
    expect(a).not.toBe(b);
    expect(apiKeyPrefix(a)).toHaveLength(12);
    const hash = hashApiKey(a);
    expect(hash).not.toContain(a);
    expect(verifyApiKey(a, hash)).toBe(true);
    expect(verifyApiKey(b, hash)).toBe(false);
    expect(verifyApiKey(a, 'not-hex')).toBe(false);
  });
});
