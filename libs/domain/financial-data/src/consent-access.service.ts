import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { SecretBox } from '#libs/crypto';
import { mapUpstreamFailure } from '#libs/domain/consents';
import { DomainError, ErrorCode } from '#libs/errors';
import { LOGGER, type AppLogger } from '#libs/observability';
import { UpstreamError, type ConsentCallOptions } from '#libs/upstream-client';
import { FinancialDataRepository, type ConsentForCall } from './financial-data.repository.js';

/** Who asks: a merchant key (any of its users) or one user's session (only that user's resources). */
export interface DataCaller {
  merchantId: string;
  userId?: string;
}

/** What a pass-through call gets: the upstream call options (token included) and the stored ids. */
export interface ConsentCall {
  options: ConsentCallOptions;
  consent: Pick<ConsentForCall, 'id' | 'upstreamConsentId' | 'institutionId' | 'authorizedAt'> & {
    vrpControlParameters: unknown;
  };
  subApplication: string | undefined;
}

/** Upstream consent faults → the local status they leave the consent in. */
const GONE_STATUS: Readonly<Record<string, string>> = {
  CONSENT_EXPIRED: 'EXPIRED',
  CONSENT_REVOKED: 'REVOKED',
  CONSENT_CONSUMED: 'CONSUMED',
  // The upstream refuses the token itself (superseded or unknown): only a new authorisation helps.
  CONSENT_INVALID: 'EXPIRED',
};

const accountNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Account not found.');
const consentNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');

/**
 * The one way financial-data routes reach the upstream with a stored consent: resolve the resource to its
 * consent within the caller's tenancy, refuse a consent that is not AUTHORIZED before any upstream call,
 * open the token only for the call, and turn failures into the API's envelope, marking the consent when
 * the bank says it is gone so later calls (and the sync) stop at once.
 */
@Injectable()
export class ConsentAccessService {
  private readonly box: SecretBox;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly repository: FinancialDataRepository,
  ) {
    this.box = new SecretBox(config.crypto.encryptionKeys);
  }

  /** Runs `call` with the consent behind the caller's account. */
  async withAccount<T>(
    caller: DataCaller,
    accountId: string,
    requestId: string | undefined,
    call: (access: ConsentCall & { upstreamAccountId: string }) => Promise<T>,
  ): Promise<T> {
    const account = await this.repository.findAccount(caller.merchantId, accountId, caller.userId);
    if (!account) throw accountNotFound();
    return this.run(account.consent, requestId, (access) =>
      call({ ...access, upstreamAccountId: account.upstreamAccountId }),
    );
  }

  /** Runs `call` with one of the caller's sweeping VRP consents. */
  async withVrpConsent<T>(
    caller: DataCaller,
    consentId: string,
    requestId: string | undefined,
    call: (access: ConsentCall) => Promise<T>,
  ): Promise<T> {
    const consent = await this.repository.findConsent(
      caller.merchantId,
      consentId,
      'VRP_SWEEPING',
      caller.userId,
    );
    if (!consent) throw consentNotFound();
    return this.run(consent, requestId, call);
  }

  private async run<T>(
    consent: ConsentForCall,
    requestId: string | undefined,
    call: (access: ConsentCall) => Promise<T>,
  ): Promise<T> {
    if (consent.status !== 'AUTHORIZED' || !consent.tokenCiphertext || !consent.tokenKeyId) {
      throw new DomainError(
        ErrorCode.CONSENT_NOT_AUTHORISED,
        `The consent is ${consent.status}, not AUTHORIZED; ask the user to authorise it.`,
      );
    }
    const token = this.box.open(
      { keyId: consent.tokenKeyId, ciphertext: consent.tokenCiphertext },
      consent.id,
    );
    const subApplication = consent.merchant.subApplicationId ?? undefined;
    try {
      return await call({
        options: { consent: token, institutionId: consent.institutionId, subApplication, requestId },
        consent: {
          id: consent.id,
          upstreamConsentId: consent.upstreamConsentId,
          institutionId: consent.institutionId,
          authorizedAt: consent.authorizedAt,
          vrpControlParameters: consent.vrpControlParameters,
        },
        subApplication,
      });
    } catch (error) {
      if (error instanceof UpstreamError) {
        const gone = GONE_STATUS[error.kind];
        this.logger.warn(
          {
            consentId: consent.id,
            upstreamKind: error.kind,
            upstreamStatus: error.status,
            upstreamTracingId: error.tracingId,
          },
          'financial data: upstream call failed',
        );
        if (gone) {
          await this.repository.markGone(
            consent.merchantId,
            consent.id,
            gone,
            error.kind,
            `upstream ${error.kind} (status ${error.status ?? 'none'})`,
          );
        }
      }
      throw mapUpstreamFailure(error, 'request');
    }
  }
}
