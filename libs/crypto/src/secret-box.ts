import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface Sealed {
  keyId: string;
  /** base64 of iv (12 bytes) ‖ auth tag (16 bytes) ‖ ciphertext. */
  ciphertext: string;
}

export class DecryptionError extends Error {
  override name = 'DecryptionError';
}

/**
 * AES-256-GCM for secrets at rest (consent tokens, webhook secrets). Each value records the id of the key
 * that sealed it, so keys rotate: seal with the first key, open with whichever key the value names.
 * `context` (for example the consent id) is bound as associated data, so a ciphertext copied onto another
 * row does not decrypt.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly active: EncryptionKey;

  constructor(keys: readonly EncryptionKey[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    for (const k of keys) if (k.key.length !== 32) throw new Error(`Key ${k.id} is not 32 bytes`);
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
    this.active = keys[0]!;
  }

  seal(plaintext: string, context: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.active.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      keyId: this.active.id,
      ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'),
    };
  }

  open(sealed: Sealed, context: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new DecryptionError(`Unknown encryption key id ${sealed.keyId}`);
    const raw = Buffer.from(sealed.ciphertext, 'base64');
    if (raw.length < 28) throw new DecryptionError('Ciphertext is too short');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new DecryptionError('Ciphertext failed authentication');
    }
  }

  /** True when the value was sealed with an older key and should be re-sealed. */
  needsRotation(sealed: Sealed): boolean {
    return sealed.keyId !== this.active.id;
  }
}
