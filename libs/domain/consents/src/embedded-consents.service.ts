import { Inject, Injectable } from '@nestjs/common';
import { assertActsFor, describeWork, type MerchantId, type TenantCaller, tenantOf } from '#libs/context';
import { InstitutionsService } from '#libs/domain/institutions';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { uuidV7 } from '#libs/ids';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import {
  type AuthorisationResponse,
  type PsuHeaders,
  UPSTREAM_CLIENT,
  type UpstreamClient,
} from '#libs/upstream-client';
import { consentNotFound, userNotFound, wrongState } from './consent.errors.js';
import { ConsentRepository, type StoredConsent } from './consent.repository.js';
import { ConsentAuthoriserService } from './consent-authoriser.service.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { canTransition, ConsentStatus, parseConsentStatus } from './consent-status.js';
import { accountTermsAt } from './consent-terms.js';
import {
  type CreateEmbeddedConsentInput,
  type EmbeddedConsentView,
  embeddedView,
  isFinalFailure,
} from './embedded-consent.views.js';
import { EmbeddedConsentEndings } from './embedded-consent-endings.js';

/**
 * The embedded flow's steps, as the user makes them: their bank credentials go straight upstream, the SCA
 * method and code follow; once the bank has the code the worker polls for its decision
 * (EmbeddedConsentPollService).
 */
@Injectable()
export class EmbeddedConsentsService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: ConsentRepository,
    private readonly state: ConsentStateRepository,
    private readonly authoriser: ConsentAuthoriserService,
    private readonly endings: EmbeddedConsentEndings,
    private readonly jobs: JobProducerService,
    private readonly institutions: InstitutionsService,
  ) {}

  async createEmbedded(
    caller: TenantCaller,
    userId: string,
    input: CreateEmbeddedConsentInput,
    psu: PsuHeaders = {},
  ): Promise<EmbeddedConsentView> {
    assertActsFor(caller, userId);
    const tenant = tenantOf(caller);
    const user = await this.consents.findUserForAuthorisation(tenant, userId);
    if (!user) throw userNotFound();
    // The request's upstream calls are the new consent's (a refused creation's too, to show why).
    const id = uuidV7();
    describeWork({ merchantId: tenant, institutionId: input.institutionId, consentId: id });
    const { scopes, dates, accountRequest } = await accountTermsAt(
      this.institutions,
      input.institutionId,
      'EMBEDDED',
      input,
      psu,
    );
    const subApplication = user.merchant.subApplicationId ?? undefined;
    let created: AuthorisationResponse;
    try {
      created = (
        await this.upstream.consents.createEmbeddedAccountAuthorisation(
          {
            applicationUserId: user.applicationUserId,
            institutionId: input.institutionId,
            userCredentials: { id: input.credentials.id, password: input.credentials.password },
            accountRequest,
          },
          { subApplication, psu },
        )
      ).data;
    } catch (error) {
      throw mapUpstreamFailure(error, { field: 'credentials', atInstitution: true });
    }
    // What we asked for (90 days at most, when the merchant named nothing) counts until the authorisation
    // names the real expiry: there is always one.
    const expiry = created.expiresAt ? new Date(created.expiresAt) : dates.expiresAt;
    const consent = await this.consents.createAwaiting(tenant, {
      id,
      userId,
      upstreamConsentId: created.id,
      institutionId: input.institutionId,
      // The first step always starts at the method choice; a bank that skips it moves on in afterStep.
      status: ConsentStatus.AwaitingScaMethod,
      redirectUrl: null,
      stateNonce: null,
      authorisationUrl: null,
      featureScope: created.featureScope ?? scopes,
      expiresAt: expiry,
      transactionsFrom: null,
      transactionsTo: null,
      flow: 'EMBEDDED',
    });
    const status = await this.afterStep(tenant, consent, created, subApplication, psu.ipAddress);
    return embeddedView(consent, created, status, expiry);
  }

  async selectScaMethod(
    caller: TenantCaller,
    consentId: string,
    scaMethodId: string,
    userAddress?: string,
  ): Promise<{ id: string; status: string }> {
    const consent = await this.embeddedConsent(caller, consentId, ConsentStatus.AwaitingScaMethod);
    const update = { selectedScaMethod: { id: scaMethodId } };
    return this.step(tenantOf(caller), consent, update, 'scaMethodId', userAddress);
  }

  async submitScaCode(
    caller: TenantCaller,
    consentId: string,
    code: string,
    userAddress?: string,
  ): Promise<{ id: string; status: string }> {
    const consent = await this.embeddedConsent(caller, consentId, ConsentStatus.AwaitingScaCode);
    return this.step(tenantOf(caller), consent, { scaCode: code }, 'code', userAddress);
  }

  private async embeddedConsent(caller: TenantCaller, consentId: string, expected: ConsentStatus) {
    const consent = await this.consents.findOne(tenantOf(caller), consentId, caller.userId);
    if (!consent) throw consentNotFound();
    if (consent.flow !== 'EMBEDDED' || consent.status !== expected) {
      throw wrongState(`The consent is ${consent.status}; this step needs ${expected}.`);
    }
    return consent;
  }

  private async step(
    merchantId: MerchantId,
    consent: StoredConsent,
    update: { selectedScaMethod: { id: string } } | { scaCode: string },
    field: string,
    userAddress: string | undefined,
  ): Promise<{ id: string; status: string }> {
    describeWork({ merchantId, institutionId: consent.institutionId, consentId: consent.id });
    const subApplication = await this.consents.subApplicationOf(merchantId);
    let answer: AuthorisationResponse;
    try {
      answer = (
        await this.upstream.consents.updateEmbeddedAccountAuthorisation(
          consent.upstreamConsentId,
          { institutionId: consent.institutionId, ...update },
          { subApplication },
        )
      ).data;
    } catch (error) {
      await this.syncFinalFailure(merchantId, consent, subApplication);
      throw mapUpstreamFailure(error, { field });
    }
    const status = await this.afterStep(merchantId, consent, answer, subApplication, userAddress);
    return { id: consent.id, status };
  }

  /** After a refused step: the bank may have given up (three wrong codes), which the merchant must see. */
  private async syncFinalFailure(merchantId: MerchantId, consent: StoredConsent, subApplication?: string) {
    try {
      const { status } = (
        await this.upstream.consents.get(consent.upstreamConsentId, {
          subApplication,
          institutionId: consent.institutionId,
        })
      ).data;
      if (isFinalFailure(status)) {
        await this.endings.endedByBank(merchantId, consent, status);
      }
    } catch {
      // Best effort: the step's own failure is what the caller is told about.
    }
  }

  /**
   * Records the upstream's new status; once the bank has the code, the worker polls for the outcome.
   * `userAddress`: the user making the step, there to have the first syncs read for them.
   */
  private async afterStep(
    merchantId: MerchantId,
    consent: StoredConsent,
    answer: AuthorisationResponse,
    subApplication: string | undefined,
    userAddress: string | undefined,
  ): Promise<string> {
    const status = parseConsentStatus(answer.status) ?? (consent.status as ConsentStatus);
    if (status === ConsentStatus.Authorised && answer.consentToken) {
      const stored = await this.authoriser.store(merchantId, consent, answer, subApplication, userAddress);
      return stored.applied ? status : (stored.found ?? consent.status);
    }
    if (isFinalFailure(status)) {
      await this.endings.endedByBank(merchantId, consent, status);
      return status;
    }
    if (status !== consent.status) {
      if (!canTransition('advanceEmbedded', consent.status, status)) {
        // A word we have no step for: keep what we know and say so, rather than store a state we cannot leave.
        this.logger.warn(
          { consentId: consent.id, from: consent.status, upstreamStatus: answer.status },
          'embedded consent: the upstream answered a status this step cannot lead to; left as it was',
        );
        return consent.status;
      }
      const moved = await this.state.advanceEmbedded(
        merchantId,
        consent.id,
        consent.status as ConsentStatus,
        status,
      );
      if (!moved.applied) return moved.found ?? consent.status;
    }
    if (status === ConsentStatus.AwaitingAuthorisation) {
      // The catalogue's dedupe id makes this one poll per consent, however often the code is sent.
      await this.jobs.enqueue('consents.poll-embedded', {
        merchantId: consent.merchantId,
        consentId: consent.id,
        ...(userAddress ? { userAddress } : {}),
      });
    }
    return status;
  }
}
