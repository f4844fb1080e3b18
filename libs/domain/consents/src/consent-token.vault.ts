import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { DecryptionError, SecretBox } from '#libs/crypto';
import { DomainError, ErrorCode, reconnectHint } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';

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

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    this.box = new SecretBox(config.crypto.encryptionKeys);
  }

  seal(token: string, consentId: string): SealedConsentToken {
    const sealed = this.box.seal(token, consentId);
    return { tokenCiphertext: sealed.ciphertext, tokenKeyId: sealed.keyId };
  }

  /**
   * The token of a row, or null when the row holds none (never authorised, or revoked). The row's user
   * and institution, when given, are named in the advice to connect the bank again.
   */
  open(
    row: {
      tokenCiphertext: string | null;
      tokenKeyId: string | null;
      userId?: string;
      institutionId?: string;
    },
    consentId: string,
  ): string | null {
    if (!row.tokenCiphertext || !row.tokenKeyId) return null;
    try {
      return this.box.open({ ciphertext: row.tokenCiphertext, keyId: row.tokenKeyId }, consentId);
    } catch (error) {
      if (!(error instanceof DecryptionError)) throw error;
      // An operator's fault (a key dropped from ENCRYPTION_KEYS too early, a damaged row), not the
      // caller's: said loudly in the log, and to the caller as a consent that must be authorised again.
      this.logger.error(
        { consentId, keyId: row.tokenKeyId, reason: error.message },
        'consent token cannot be opened: is its key still in ENCRYPTION_KEYS?',
      );
      throw new DomainError(
        ErrorCode.CONSENT_NOT_AUTHORISED,
        `The consent's token cannot be used any more; ask the user to ${reconnectHint(row.userId, row.institutionId)}`,
      );
    }
  }
}
