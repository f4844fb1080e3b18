import { Inject, Injectable } from '@nestjs/common';
import { describeWork, type MerchantId, type TenantCaller, tenantOf } from '#libs/context';
import {
  consentGoneOnError,
  ConsentStateRepository,
  ConsentStatus,
  ConsentTokenVault,
  VRP_KINDS,
} from '#libs/domain/consents';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode, reauthoriseHint, reconnectHint } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type ConsentCallOptions, type PsuHeaders, UpstreamError } from '#libs/upstream-client';
import { type ConsentForCall, FinancialDataRepository } from './financial-data.repository.js';

/** What a pass-through call gets: the upstream call options (token included) and the stored ids. */
export interface ConsentCall {
  options: ConsentCallOptions;
  consent: Pick<ConsentForCall, 'id' | 'kind' | 'upstreamConsentId' | 'institutionId' | 'authorizedAt'> & {
    vrpControlParameters: unknown;
    vrpInitiationDetails: unknown;
  };
  subApplication: string | undefined;
}

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
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly repository: FinancialDataRepository,
    private readonly vault: ConsentTokenVault,
    private readonly state: ConsentStateRepository,
  ) {}

  /** Runs `call` with the consent behind the caller's account, and the PSU headers the caller gave. */
  async withAccount<T>(
    caller: TenantCaller,
    accountId: string,
    call: (access: ConsentCall & { upstreamAccountId: string }) => Promise<T>,
    psu: PsuHeaders = {},
  ): Promise<T> {
    const tenant = tenantOf(caller);
    const account = await this.repository.findAccount(tenant, accountId, caller.userId);
    if (!account) throw accountNotFound();
    return this.run(tenant, account.consent, 'account', (access) =>
      call({
        ...access,
        options: Object.keys(psu).length > 0 ? { ...access.options, psu } : access.options,
        upstreamAccountId: account.upstreamAccountId,
      }),
    );
  }

  /** Runs `call` with one of the caller's VRP consents (sweeping or commercial). */
  async withVrpConsent<T>(
    caller: TenantCaller,
    consentId: string,
    call: (access: ConsentCall) => Promise<T>,
  ): Promise<T> {
    const tenant = tenantOf(caller);
    const consent = await this.repository.findConsent(tenant, consentId, VRP_KINDS, caller.userId);
    if (!consent) throw consentNotFound();
    return this.run(tenant, consent, 'consent', call);
  }

  private async run<T>(
    tenant: MerchantId,
    consent: ConsentForCall,
    resource: 'account' | 'consent',
    call: (access: ConsentCall) => Promise<T>,
  ): Promise<T> {
    // A live read's or a VRP consent's calls (funds confirmation) are the consent's in its call log.
    describeWork({ merchantId: tenant, institutionId: consent.institutionId, consentId: consent.id });
    const token = consent.status === ConsentStatus.Authorised ? this.vault.open(consent, consent.id) : null;
    if (!token) {
      throw new DomainError(
        ErrorCode.CONSENT_NOT_AUTHORISED,
        consent.status === ConsentStatus.AwaitingReauthorisation
          ? `The consent waits for the user's re-authorisation: ${reauthoriseHint(consent.id)}`
          : `The consent is ${consent.status}, not AUTHORIZED; ask the user to authorise it, or, if it has ended (revoked, expired), to ${reconnectHint(consent.userId, consent.institutionId)}`,
      );
    }
    const subApplication = consent.merchant.subApplicationId ?? undefined;
    try {
      return await call({
        options: { consent: token, institutionId: consent.institutionId, subApplication },
        consent: {
          id: consent.id,
          kind: consent.kind,
          upstreamConsentId: consent.upstreamConsentId,
          institutionId: consent.institutionId,
          authorizedAt: consent.authorizedAt,
          vrpControlParameters: consent.vrpControlParameters,
          vrpInitiationDetails: consent.vrpInitiationDetails,
        },
        subApplication,
      });
    } catch (error) {
      if (error instanceof UpstreamError) await this.noteFailure(tenant, consent, error);
      // The upstream no longer knowing an account or consent we hold is not the caller's input (409
      // CONFLICT); a refusal of what the caller sent (dates, amounts) is theirs to fix (400).
      throw mapUpstreamFailure(error, { resource, field: 'request' });
    }
  }

  /** Logs a failed call, and marks the consent when the bank says it is gone. */
  private async noteFailure(tenant: MerchantId, consent: ConsentForCall, error: UpstreamError) {
    const gone = consentGoneOnError(error);
    this.logger.warn(
      {
        consentId: consent.id,
        upstreamKind: error.kind,
        upstreamStatus: error.status,
        upstreamTracingId: error.tracingId,
      },
      'financial data: upstream call failed',
    );
    if (!gone) return;
    const marked = await this.state.markGone(tenant, {
      consentId: consent.id,
      ...gone,
      now: new Date(),
      tokenUsed: consent.tokenCiphertext,
    });
    // A concurrent re-authorisation or revocation already moved it on: that newer state stands.
    if (!marked.applied) {
      this.logger.info({ consentId: consent.id, found: marked.found }, 'consent not marked gone');
    }
  }
}
