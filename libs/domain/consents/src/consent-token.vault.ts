import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { SecretBox } from '#libs/crypto';

/** A consent token as stored: the ciphertext and the id of the key that sealed it. */
export interface SealedConsentToken {
  tokenCiphertext: string;
  tokenKeyId: string;
}

/**
 * The one place consent tokens are sealed and opened. Each is bound to its consent row's id, so a
 * ciphertext copied onto another row does not open; tokens are opened only for the call that sends them.
 */
@Injectable()
export class ConsentTokenVault {
  private readonly box: SecretBox;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.box = new SecretBox(config.crypto.encryptionKeys);
  }

  seal(token: string, consentId: string): SealedConsentToken {
    const sealed = this.box.seal(token, consentId);
    return { tokenCiphertext: sealed.ciphertext, tokenKeyId: sealed.keyId };
  }

  /** The token of a row, or null when the row holds none (never authorised, or revoked). */
  open(row: { tokenCiphertext: string | null; tokenKeyId: string | null }, consentId: string): string | null {
    if (!row.tokenCiphertext || !row.tokenKeyId) return null;
    return this.box.open({ ciphertext: row.tokenCiphertext, keyId: row.tokenKeyId }, consentId);
  }
}
