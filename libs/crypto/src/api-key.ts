import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Merchant API keys: `mk_` + 32 random base62-ish characters. The first 12 characters (`mk_` + 9) are a
 * public lookup prefix stored in clear; the whole key is stored as a SHA-256 hash. A fast hash is right
 * here because the keys are random (no dictionary to guess from); a slow KDF would only tax every request.
 */
export const API_KEY_PREFIX_LENGTH = 12;

export function generateApiKey(): string {
  return `mk_${randomBytes(24).toString('base64url')}`;
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function verifyApiKey(key: string, expectedHash: string): boolean {
  const actual = Buffer.from(hashApiKey(key), 'hex');
  const expected = Buffer.from(expectedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
