import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { describeWork, type MerchantId, tenantOfRecord } from '#libs/context';
import { dependencyFailureOf, DomainError, ErrorCode, retryWhileUnavailable } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type Consent as ExchangedConsent,
  type PsuHeaders,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
} from '#libs/upstream-client';
import { ConsentRepository, type StoredConsent } from './consent.repository.js';
import { ConsentAuthoriserService } from './consent-authoriser.service.js';
import { ConsentCallbackHooks } from './consent-callback.hooks.js';
import { ConsentSettleService } from './consent-settle.service.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStateSigner } from './consent-state.signer.js';
import { ConsentStatus } from './consent-status.js';

/** The query of the upstream's redirect to our callback (names as the upstream sends them). */
export interface ConsentCallback {
  bffState?: string;
  oneTimeToken?: string;
  consentId?: string;
  /** The upstream's own state: the single-use proof of a re-authorisation's return. */
  state?: string;
  error?: string;
  errorDescription?: string;
}

// One answer for every reason a callback is refused, so a prober learns nothing about which check failed.
const badCallback = () =>
  new DomainError(
    ErrorCode.VALIDATION_FAILED,
    'The authorisation callback is invalid, expired or already used.',
    {
      details: [{ field: 'state', issue: 'is invalid, expired or already used' }],
    },
  );

/**
 * How long an approval whose storing met an outage is kept in memory and tried again: past it (or when the
 * process stops first) the consent ends like an abandoned authorisation, and the user connects again.
 */
const STORE_WHEN_BACK_MS = 10 * 60_000;

/** A consent whose callback state was spent, with the merchant the signed state named. */
interface ClaimedConsent {
  tenant: MerchantId;
  consent: StoredConsent;
}

// An OAuth-style error code is passed on to the merchant's page; anything else becomes the generic one.
const safeErrorCode = (e: string) => (/^[a-z_]{1,64}$/.test(e) ? e : 'access_denied');

/** The merchant's page for a consent, with the outcome in its query. */
function backToMerchant(consent: StoredConsent, params: Record<string, string>): string {
  const url = new URL(consent.redirectUrl!);
  url.searchParams.set('consentId', consent.id);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * The browser's return from the bank through our callback (redirect flow): spends the single-use proof,
 * exchanges the one-time token, stores the authorised consent, and answers where the browser goes next.
 * Kept whole: the first return, its replay and the store after an outage are one flow over one state.
 */
@Injectable()
export class ConsentCallbackService {
  private readonly signer: ConsentStateSigner;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: ConsentRepository,
    private readonly state: ConsentStateRepository,
    private readonly authoriser: ConsentAuthoriserService,
    private readonly hooks: ConsentCallbackHooks,
    private readonly settle: ConsentSettleService,
  ) {
    this.signer = new ConsentStateSigner(config.crypto.signingSecret);
  }
  /**
   * The browser's return from the bank, after a first authorisation, a pre-authorisation update or a
   * re-authorisation. Verifies and spends the single-use proof first (nothing else is trusted before
   * that, the redirect target included), then exchanges the one-time token and stores the authorised
   * consent (a re-authorisation's new token replaces the old one), and answers where to send the browser.
   * The user is here: the first syncs read the bank on their behalf (`psu`, their browser's address).
   */
  async completeCallback(query: ConsentCallback, psu: PsuHeaders = {}): Promise<string> {
    const claimed = (await this.claimFirstAuthorisation(query)) ?? (await this.claimReauthorisation(query));
    if (!claimed) return this.replay(query, psu);
    const { tenant, consent } = claimed;
    describeWork({ merchantId: tenant, institutionId: consent.institutionId, consentId: consent.id });
    if (query.consentId !== undefined && query.consentId !== consent.upstreamConsentId) throw badCallback();
    const redirect = (params: Record<string, string>) => backToMerchant(consent, params);
    const hook = this.hooks.for(consent.kind);
    if (query.error !== undefined || !query.oneTimeToken) {
      const code = query.error !== undefined ? safeErrorCode(query.error) : 'invalid_request';
      await this.fail(tenant, consent, ConsentStatus.Rejected, code, query.errorDescription ?? null);
      const extra = (await hook?.failed(tenant, consent, ConsentStatus.Rejected)) ?? {};
      return redirect({ status: ConsentStatus.Rejected, error: code, ...extra });
    }

    const subApplication = await this.consents.subApplicationOf(tenant);
    let exchanged: ExchangedConsent | undefined;
    try {
      const answer = this.upstream.consents.exchangeOneTimeToken(query.oneTimeToken, { subApplication, psu });
      exchanged = (await answer).data;
      if (exchanged.id !== consent.upstreamConsentId || !exchanged.consentToken) {
        throw new Error('The one-time token named another consent or carried no token');
      }
      const stored = await this.authoriser.store(tenant, consent, exchanged, subApplication, psu.ipAddress);
      if (!stored.applied) return redirect({ status: stored.found ?? ConsentStatus.Failed });
    } catch (error) {
      if (exchanged && dependencyFailureOf(error)) {
        // The bank said yes and we hold its token, but our database went away before it was stored: it is
        // stored once the database is back, and the outage page's reload then finds the consent authorised.
        this.storeWhenBack(tenant, consent, exchanged, subApplication);
        throw error;
      }
      // The browser still goes back to the merchant (the state proved the target), told that it failed.
      // What failed, without the error itself (its message may quote the request): the upstream's kind and
      // status, or the dependency that was away, or the error's class.
      this.logger.warn(
        {
          consentId: consent.id,
          upstreamTracingId: error instanceof UpstreamError ? error.tracingId : undefined,
          upstreamKind: error instanceof UpstreamError ? error.kind : undefined,
          upstreamStatus: error instanceof UpstreamError ? error.status : undefined,
          dependency: dependencyFailureOf(error),
          errorName: error instanceof Error ? error.name : typeof error,
        },
        'consent callback: one-time token exchange or storing its answer failed',
      );
      await this.fail(
        tenant,
        consent,
        ConsentStatus.Failed,
        'TOKEN_EXCHANGE_FAILED',
        error instanceof UpstreamError ? `upstream ${error.kind}` : 'unexpected exchange answer',
      );
      const extra = (await hook?.failed(tenant, consent, ConsentStatus.Failed)) ?? {};
      return redirect({ status: ConsentStatus.Failed, error: 'server_error', ...extra });
    }
    // Outside the try: a payment that fails is the hook's to record and report, not a failed exchange.
    const extra = (await hook?.authorised(tenant, consent, psu)) ?? {};
    return redirect({ status: ConsentStatus.Authorised, ...extra });
  }

  /**
   * The same return from the bank again, its single-use state already spent: a reload after an answer
   * that was lost (a dropped connection, an outage page) or the back button. Nothing is exchanged or
   * paid again; the browser goes back to the merchant with the consent's status as it is now (and a
   * payment's, which the payment hook answers without acting twice). A state that is not ours, expired,
   * or whose consent never had its callback is refused as before.
   */
  private async replay(query: ConsentCallback, psu: PsuHeaders): Promise<string> {
    const state = query.bffState ? this.signer.verify(query.bffState) : null;
    if (!state) throw badCallback();
    const tenant = tenantOfRecord(state);
    let consent = await this.consents.findCallbackSpent(tenant, state.consentId);
    if (!consent?.redirectUrl) throw badCallback();
    if (query.consentId !== undefined && query.consentId !== consent.upstreamConsentId) throw badCallback();
    const hook = this.hooks.for(consent.kind);
    // The first try spent the state but its answer was lost (the database went away): this reload
    // finishes it from the bank, rather than send the user back with AWAITING_AUTHORIZATION for good.
    const spent = await this.settle.spentCallback(tenant, consent.id);
    if (spent) {
      await this.settle.finish(tenant, spent, query.oneTimeToken, psu);
      consent = (await this.consents.findCallbackSpent(tenant, consent.id)) ?? consent;
    }
    const status = consent.status as ConsentStatus;
    const extra =
      status === ConsentStatus.Authorised || status === ConsentStatus.Consumed
        ? ((await hook?.authorised(tenant, consent, psu)) ?? {})
        : status === ConsentStatus.Rejected || status === ConsentStatus.Failed
          ? ((await hook?.failed(tenant, consent, status)) ?? {})
          : {};
    return backToMerchant(consent, { status, ...extra });
  }

  private storeWhenBack(
    tenant: MerchantId,
    consent: StoredConsent,
    exchanged: ExchangedConsent,
    subApplication: string | undefined,
  ) {
    // Then what the callback would have done next (a single payment is made): the user may never reload,
    // and a reload that came before the store found nothing to act on. The hook acts at most once.
    // A store whose answer was lost with the database may have been applied: authorised is authorised,
    // whoever stored it.
    let stored: boolean | undefined;
    retryWhileUnavailable(
      async () => {
        if (stored === undefined) {
          const result = await this.authoriser.store(tenant, consent, exchanged, subApplication);
          stored = result.applied || result.found === ConsentStatus.Authorised;
        }
        if (stored) await this.hooks.for(consent.kind)?.authorised(tenant, consent);
      },
      {
        giveUpAt: Date.now() + STORE_WHEN_BACK_MS,
        onGiveUp: (error) =>
          this.logger.warn(
            {
              consentId: consent.id,
              dependency: dependencyFailureOf(error),
              errorName: (error as Error)?.name,
            },
            stored
              ? 'consent callback: the approval was stored but not acted on; the status poll makes the payment'
              : 'consent callback: the approval was not stored; the user must connect again',
          ),
      },
    );
  }

  private async fail(
    tenant: MerchantId,
    consent: StoredConsent,
    status: ConsentStatus,
    code: string,
    message: string | null,
  ) {
    const result = await this.state.markFailed(tenant, consent.id, status, code, message);
    if (!result.applied) {
      this.logger.warn(
        { consentId: consent.id, found: result.found, status },
        'consent callback: not marked',
      );
    }
  }

  private async claimFirstAuthorisation(query: ConsentCallback): Promise<ClaimedConsent | null> {
    const state = query.bffState ? this.signer.verify(query.bffState) : null;
    if (!state) return null;
    const tenant = tenantOfRecord(state);
    // Before the claim, whose answer a database outage may lose with the approval: the worker's look.
    await this.settle.scheduleCallbackCheck(tenant, state.consentId);
    const consent = await this.consents.claimCallback(tenant, state.consentId, state.nonce);
    return consent ? { tenant, consent } : null;
  }

  /**
   * The upstream forwards the state we issued at creation (it may be long expired): its signature proves
   * whose consent it is, and the upstream's fresh `state` for this round, stored when we asked for the
   * re-authorisation, is the single-use proof.
   */
  private async claimReauthorisation(query: ConsentCallback): Promise<ClaimedConsent | null> {
    const state = query.bffState
      ? this.signer.verify(query.bffState, Date.now(), { ignoreExpiry: true })
      : null;
    if (!state || !query.state || !query.consentId) return null;
    const tenant = tenantOfRecord(state);
    const consent = await this.consents.claimReauthorisation(
      tenant,
      state.consentId,
      query.consentId,
      query.state,
    );
    return consent ? { tenant, consent } : null;
  }
}
