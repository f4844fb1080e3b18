import { setTimeout as wait } from 'node:timers/promises';
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

/** How long the bank may take after the SCA code, and how often we ask meanwhile. */
export const EMBEDDED_POLL = { deadlineMs: 120_000, firstDelayMs: 500, maxDelayMs: 5_000 };

/**
 * The embedded flow: the user's bank credentials go straight upstream, the SCA method and code follow,
 * and once the bank has the code the worker polls the upstream until the consent is authorised or fails.
 */
@Injectable()
export class EmbeddedConsentsService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: ConsentRepository,
    private readonly state: ConsentStateRepository,
    private readonly authoriser: ConsentAuthoriserService,
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
    const status = await this.afterStep(tenant, consent, created, subApplication);
    return embeddedView(consent, created, status, expiry);
  }

  async selectScaMethod(
    caller: TenantCaller,
    consentId: string,
    scaMethodId: string,
  ): Promise<{ id: string; status: string }> {
    const consent = await this.embeddedConsent(caller, consentId, ConsentStatus.AwaitingScaMethod);
    return this.step(tenantOf(caller), consent, { selectedScaMethod: { id: scaMethodId } }, 'scaMethodId');
  }

  async submitScaCode(
    caller: TenantCaller,
    consentId: string,
    code: string,
  ): Promise<{ id: string; status: string }> {
    const consent = await this.embeddedConsent(caller, consentId, ConsentStatus.AwaitingScaCode);
    return this.step(tenantOf(caller), consent, { scaCode: code }, 'code');
  }

  /**
   * The worker's poll after the SCA code: asks the upstream until the consent is authorised (then stores
   * it like the redirect callback does) or finally failed (then marks it), within a deadline counted from
   * `startedAt` (the job's creation, so a retried job does not start the clock again). Safe to run twice:
   * a consent that is no longer awaiting is left alone.
   */
  async pollEmbedded(
    merchantId: MerchantId,
    consentId: string,
    startedAt: number,
    options = EMBEDDED_POLL,
  ): Promise<{ status: string }> {
    const consent = await this.consents.findOne(merchantId, consentId);
    if (!consent) throw consentNotFound();
    describeWork({ merchantId, institutionId: consent.institutionId, consentId });
    if (consent.flow !== 'EMBEDDED' || consent.status !== ConsentStatus.AwaitingAuthorisation) {
      return { status: consent.status };
    }
    const subApplication = await this.consents.subApplicationOf(merchantId);
    const deadline = startedAt + options.deadlineMs;
    let delay = options.firstDelayMs;
    for (;;) {
      const upstream = (
        await this.upstream.consents.get(consent.upstreamConsentId, {
          subApplication,
          institutionId: consent.institutionId,
          deadlineMs: Math.max(1_000, deadline - Date.now()),
        })
      ).data;
      if (upstream.status === ConsentStatus.Authorised) {
        const stored = await this.authoriser.store(merchantId, consent, upstream, subApplication);
        return { status: stored.applied ? ConsentStatus.Authorised : (stored.found ?? 'GONE') };
      }
      if (isFinalFailure(upstream.status)) {
        await this.endedByBank(merchantId, consent, upstream.status);
        return { status: upstream.status };
      }
      if (Date.now() + delay > deadline) {
        await this.fail(
          merchantId,
          consent,
          ConsentStatus.Failed,
          'EMBEDDED_TIMEOUT',
          `Not authorised within ${options.deadlineMs / 1000} s of the SCA code`,
        );
        return { status: ConsentStatus.Failed };
      }
      await wait(delay);
      delay = Math.min(options.maxDelayMs, delay * 2);
    }
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
    return { id: consent.id, status: await this.afterStep(merchantId, consent, answer, subApplication) };
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
        await this.endedByBank(merchantId, consent, status);
      }
    } catch {
      // Best effort: the step's own failure is what the caller is told about.
    }
  }

  /** Records the upstream's new status; once the bank has the code, the worker polls for the outcome. */
  private async afterStep(
    merchantId: MerchantId,
    consent: StoredConsent,
    answer: AuthorisationResponse,
    subApplication: string | undefined,
  ): Promise<string> {
    const status = parseConsentStatus(answer.status) ?? (consent.status as ConsentStatus);
    if (status === ConsentStatus.Authorised && answer.consentToken) {
      const stored = await this.authoriser.store(merchantId, consent, answer, subApplication);
      return stored.applied ? status : (stored.found ?? consent.status);
    }
    if (isFinalFailure(status)) {
      await this.endedByBank(merchantId, consent, status);
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
      });
    }
    return status;
  }

  /** The bank ended the authorisation (rejected, failed, expired): the consent fails with its word. */
  private endedByBank(merchantId: MerchantId, consent: StoredConsent, status: ConsentStatus) {
    return this.fail(
      merchantId,
      consent,
      status,
      `EMBEDDED_${status}`,
      'The institution ended the authorisation',
    );
  }

  private async fail(
    merchantId: MerchantId,
    consent: StoredConsent,
    status: ConsentStatus,
    code: string,
    message: string,
  ) {
    const result = await this.state.markFailed(merchantId, consent.id, status, code, message);
    if (!result.applied) {
      this.logger.warn(
        { consentId: consent.id, found: result.found, status },
        'embedded consent: not marked',
      );
    }
  }
}
