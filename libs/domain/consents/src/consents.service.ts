import { setTimeout as wait } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { SecretBox } from '#libs/crypto';
import { AccountRepository } from '#libs/domain/accounts';
import { DomainError, ErrorCode } from '#libs/errors';
import { LOGGER, type AppLogger } from '#libs/observability';
import { JobProducer, pollEmbeddedJobId } from '#libs/queue';
import {
  UPSTREAM_CLIENT,
  UpstreamError,
  type AuthorisationResponse,
  type Consent,
  type UpstreamClient,
} from '#libs/upstream-client';
import { ConsentStateSigner } from './consent-state.signer.js';
import {
  AWAITING,
  AWAITING_REAUTHORISATION,
  ConsentRepository,
  type StoredConsent,
} from './consent.repository.js';
import { mapUpstreamFailure } from './upstream-failure.mapper.js';
import { uuidV7 } from './uuid-v7.js';

/** Who asks: a merchant key (any user of the merchant) or one user's session (only that user). */
export interface ConsentsCaller {
  merchantId: string;
  userId?: string;
}

export interface CreateConsentInput {
  institutionId: string;
  redirectUrl: string;
  scopes?: string[];
  expiresAt?: string;
  transactionsFrom?: string;
  transactionsTo?: string;
}

export interface ConsentView {
  id: string;
  userId: string;
  institutionId: string;
  status: string;
  featureScope: string[];
  expiresAt: string | null;
  createdAt: string;
  authorizedAt: string | null;
  revokedAt: string | null;
  authorisationUrl?: string;
  reauthorisationUrl?: string;
  /** On a single consent only: how fresh its accounts' data is (API.md `sync` summary). */
  sync?: ConsentSyncSummary;
}

export interface ConsentSyncSummary {
  /** The least advanced state among the consent's accounts; `none` when it has no accounts. */
  status: 'none' | 'pending' | 'syncing' | 'synced' | 'failed' | 'stopped';
  /** When the least recently synced account was last synced: every account is at least this fresh. */
  lastSyncedAt: string | null;
}

/** Worst first: the summary reports the account furthest from "synced". */
const SYNC_ORDER = ['failed', 'pending', 'syncing', 'stopped', 'synced'] as const;

export function summariseSync(
  accounts: { syncStatus: string; lastSyncedAt: Date | null }[],
): ConsentSyncSummary {
  if (accounts.length === 0) return { status: 'none', lastSyncedAt: null };
  const statuses = new Set(accounts.map((a) => a.syncStatus.toLowerCase()));
  const status = SYNC_ORDER.find((s) => statuses.has(s)) ?? 'pending';
  const times = accounts.map((a) => a.lastSyncedAt?.getTime());
  const oldest = times.some((t) => t === undefined) ? null : Math.min(...(times as number[]));
  return { status, lastSyncedAt: oldest === null ? null : new Date(oldest).toISOString() };
}

export interface CreateEmbeddedConsentInput {
  institutionId: string;
  /** Sent straight to the upstream; never stored, never logged. */
  credentials: { id: string; password: string };
  scopes?: string[];
}

export interface EmbeddedConsentView {
  id: string;
  status: string;
  institutionId: string;
  scaMethods?: { id: string; type: string | null; description: string | null }[];
  expiresAt?: string;
}

export interface PreAuthorisationInput {
  scopes: string[];
  expiresAt?: string;
  transactionsFrom?: string;
  transactionsTo?: string;
  redirectUrl?: string;
}

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

export const AWAITING_SCA_METHOD = 'AWAITING_SCA_METHOD';
export const AWAITING_SCA_CODE = 'AWAITING_SCA_CODE';

/** Upstream statuses after which an embedded consent will never become authorised: polling stops. */
export const FINAL_FAILURE_STATUSES: readonly string[] = [
  'REJECTED',
  'FAILED',
  'EXPIRED',
  'REVOKED',
  'CONSUMED',
  'INVALID',
];

/** How long the bank may take after the SCA code, and how often we ask meanwhile. */
export const EMBEDDED_POLL = { deadlineMs: 120_000, firstDelayMs: 500, maxDelayMs: 5_000 };

/** Our own state parameter: the upstream generates and returns its own `state`, so ours travels as a forwarded parameter. */
export const STATE_PARAMETER = 'bffState';

export function toConsentView(c: StoredConsent): ConsentView {
  return {
    id: c.id,
    userId: c.userId,
    institutionId: c.institutionId,
    status: c.status,
    featureScope: c.featureScope,
    expiresAt: c.expiresAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    authorizedAt: c.authorizedAt?.toISOString() ?? null,
    revokedAt: c.revokedAt?.toISOString() ?? null,
    ...(c.status === AWAITING && c.authorisationUrl ? { authorisationUrl: c.authorisationUrl } : {}),
    ...(c.reauthorisationUrl ? { reauthorisationUrl: c.reauthorisationUrl } : {}),
  };
}

const consentNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');
const wrongState = (message: string) => new DomainError(ErrorCode.CONFLICT, message);
const userNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');
// One answer for every reason a callback is refused, so a prober learns nothing about which check failed.
const badCallback = () =>
  new DomainError(
    ErrorCode.VALIDATION_FAILED,
    'The authorisation callback is invalid, expired or already used.',
    {
      details: [{ field: 'state', issue: 'is invalid, expired or already used' }],
    },
  );

const parseDate = (v: string | undefined) => (v ? new Date(v) : null);
// An OAuth-style error code is passed on to the merchant's page; anything else becomes the generic one.
const safeErrorCode = (e: string) => (/^[a-z_]{1,64}$/.test(e) ? e : 'access_denied');

@Injectable()
export class ConsentsService {
  private readonly signer: ConsentStateSigner;
  private readonly box: SecretBox;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: ConsentRepository,
    private readonly accounts: AccountRepository,
    private readonly jobs: JobProducer,
  ) {
    this.signer = new ConsentStateSigner(config.crypto.signingSecret);
    this.box = new SecretBox(config.crypto.encryptionKeys);
  }

  async create(caller: ConsentsCaller, userId: string, input: CreateConsentInput, requestId?: string) {
    if (caller.userId && caller.userId !== userId) throw userNotFound();
    const user = await this.consents.findUserForAuthorisation(caller.merchantId, userId);
    if (!user) throw userNotFound();
    this.checkRedirectUrl(input.redirectUrl, user.merchant.frontendOrigins);

    const id = uuidV7();
    const nonce = ConsentStateSigner.newNonce();
    const state = this.signer.sign({ merchantId: caller.merchantId, consentId: id, nonce });
    const expiresAt = parseDate(input.expiresAt);
    const transactionsFrom = parseDate(input.transactionsFrom);
    const transactionsTo = parseDate(input.transactionsTo);

    let created;
    try {
      created = await this.upstream.createAccountAuthorisation(
        {
          applicationUserId: user.applicationUserId,
          institutionId: input.institutionId,
          callback: `${this.config.api.publicUrl}/v1/callbacks/consents`,
          // The consent token must never reach the browser: the callback gets a one-time token instead.
          oneTimeToken: true,
          forwardParameters: [`${STATE_PARAMETER}=${state}`],
          accountRequest: {
            ...(input.scopes ? { featureScope: input.scopes } : {}),
            ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
            ...(transactionsFrom ? { transactionFrom: transactionsFrom.toISOString() } : {}),
            ...(transactionsTo ? { transactionTo: transactionsTo.toISOString() } : {}),
          },
        },
        { subApplication: user.merchant.subApplicationId ?? undefined, requestId },
      );
    } catch (error) {
      throw mapUpstreamFailure(error, 'institutionId');
    }
    const authorisation = created.data;
    const consent = await this.consents.createAwaiting({
      id,
      merchantId: caller.merchantId,
      userId,
      upstreamConsentId: authorisation.id,
      institutionId: input.institutionId,
      status: authorisation.status ?? AWAITING,
      redirectUrl: input.redirectUrl,
      stateNonce: nonce,
      authorisationUrl: authorisation.authorisationUrl ?? null,
      featureScope: authorisation.featureScope ?? input.scopes ?? [],
      expiresAt: authorisation.expiresAt ? new Date(authorisation.expiresAt) : expiresAt,
      transactionsFrom,
      transactionsTo,
    });
    return {
      id: consent.id,
      status: consent.status,
      authorisationUrl: consent.authorisationUrl,
      institutionId: consent.institutionId,
      ...(consent.expiresAt ? { expiresAt: consent.expiresAt.toISOString() } : {}),
    };
  }

  /**
   * The browser's return from the bank, after a first authorisation, a pre-authorisation update or a
   * re-authorisation. Verifies and spends the single-use proof first (nothing else is trusted before
   * that, the redirect target included), then exchanges the one-time token, stores the consent token
   * encrypted (a re-authorisation's new token replaces the old one), stores the accounts, and answers
   * where to send the browser.
   */
  async completeCallback(query: ConsentCallback, requestId?: string): Promise<string> {
    const consent = (await this.claimFirstAuthorisation(query)) ?? (await this.claimReauthorisation(query));
    if (!consent) throw badCallback();
    if (query.consentId !== undefined && query.consentId !== consent.upstreamConsentId) throw badCallback();
    const redirect = (params: Record<string, string>) => {
      const url = new URL(consent.redirectUrl!);
      url.searchParams.set('consentId', consent.id);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url.toString();
    };

    if (query.error !== undefined || !query.oneTimeToken) {
      const code = query.error !== undefined ? safeErrorCode(query.error) : 'invalid_request';
      await this.consents.markFailed(
        consent.merchantId,
        consent.id,
        'REJECTED',
        code,
        query.errorDescription ?? null,
      );
      return redirect({ status: 'REJECTED', error: code });
    }

    const subApplication = await this.consents.subApplicationOf(consent.merchantId);
    try {
      const exchanged = (
        await this.upstream.exchangeOneTimeToken(query.oneTimeToken, { subApplication, requestId })
      ).data;
      if (exchanged.id !== consent.upstreamConsentId || !exchanged.consentToken) {
        throw new Error('The one-time token named another consent or carried no token');
      }
      await this.storeAuthorisation(consent, exchanged, subApplication, requestId);
    } catch (error) {
      // The browser still goes back to the merchant (the state proved the target), told that it failed.
      this.logger.warn(
        {
          consentId: consent.id,
          upstreamTracingId: error instanceof UpstreamError ? error.tracingId : undefined,
        },
        'consent callback: one-time token exchange failed',
      );
      await this.consents.markFailed(
        consent.merchantId,
        consent.id,
        'FAILED',
        'TOKEN_EXCHANGE_FAILED',
        error instanceof UpstreamError ? `upstream ${error.kind}` : 'unexpected exchange answer',
      );
      return redirect({ status: 'FAILED', error: 'server_error' });
    }
    return redirect({ status: 'AUTHORIZED' });
  }

  private async claimFirstAuthorisation(query: ConsentCallback): Promise<StoredConsent | null> {
    const state = query.bffState ? this.signer.verify(query.bffState) : null;
    return state ? this.consents.claimCallback(state.merchantId, state.consentId, state.nonce) : null;
  }

  /**
   * The upstream forwards the state we issued at creation (it may be long expired): its signature proves
   * whose consent it is, and the upstream's fresh `state` for this round, stored when we asked for the
   * re-authorisation, is the single-use proof.
   */
  private async claimReauthorisation(query: ConsentCallback): Promise<StoredConsent | null> {
    const state = query.bffState
      ? this.signer.verify(query.bffState, Date.now(), { ignoreExpiry: true })
      : null;
    if (!state || !query.state || !query.consentId) return null;
    return this.consents.claimReauthorisation(
      state.merchantId,
      state.consentId,
      query.consentId,
      query.state,
    );
  }

  /**
   * The one way an authorised consent is stored, for the redirect callback and the embedded poll alike:
   * the accounts, then the token sealed with SecretBox (bound to the row id) and the upstream's terms.
   */
  private async storeAuthorisation(
    consent: StoredConsent,
    authorised: Consent,
    subApplication: string | undefined,
    requestId?: string,
  ): Promise<void> {
    const token = authorised.consentToken;
    if (!token) throw new Error('The authorised consent carried no token');
    // Accounts first: once the status says AUTHORIZED (what a poller waits for), they are readable.
    try {
      const { data: accounts } = await this.upstream.getAccounts({
        consent: token,
        institutionId: consent.institutionId,
        subApplication,
        requestId,
      });
      await this.accounts.upsertFromUpstream(
        {
          merchantId: consent.merchantId,
          userId: consent.userId,
          consentId: consent.id,
          institutionId: consent.institutionId,
        },
        accounts,
      );
    } catch (error) {
      // The consent is authorised either way; the first background sync fetches the accounts again.
      this.logger.warn(
        {
          consentId: consent.id,
          upstreamTracingId: error instanceof UpstreamError ? error.tracingId : undefined,
        },
        'consent authorised: fetching accounts failed; left to the background sync',
      );
    }
    const sealed = this.box.seal(token, consent.id);
    await this.consents.markAuthorised(consent.merchantId, consent.id, {
      status: authorised.status ?? 'AUTHORIZED',
      tokenCiphertext: sealed.ciphertext,
      tokenKeyId: sealed.keyId,
      authorizedAt: authorised.authorizedAt ? new Date(authorised.authorizedAt) : new Date(),
      expiresAt: authorised.expiresAt ? new Date(authorised.expiresAt) : consent.expiresAt,
      featureScope: authorised.featureScope ?? consent.featureScope,
      institutionConsentId: authorised.institutionConsentId ?? null,
    });
  }

  // ---- embedded flow

  async createEmbedded(
    caller: ConsentsCaller,
    userId: string,
    input: CreateEmbeddedConsentInput,
    requestId?: string,
  ): Promise<EmbeddedConsentView> {
    if (caller.userId && caller.userId !== userId) throw userNotFound();
    const user = await this.consents.findUserForAuthorisation(caller.merchantId, userId);
    if (!user) throw userNotFound();
    const subApplication = user.merchant.subApplicationId ?? undefined;
    let created: AuthorisationResponse;
    try {
      created = (
        await this.upstream.createEmbeddedAccountAuthorisation(
          {
            applicationUserId: user.applicationUserId,
            institutionId: input.institutionId,
            userCredentials: { id: input.credentials.id, password: input.credentials.password },
            ...(input.scopes ? { accountRequest: { featureScope: input.scopes } } : {}),
          },
          { subApplication, requestId },
        )
      ).data;
    } catch (error) {
      throw mapUpstreamFailure(error, 'credentials');
    }
    const consent = await this.consents.createAwaiting({
      id: uuidV7(),
      merchantId: caller.merchantId,
      userId,
      upstreamConsentId: created.id,
      institutionId: input.institutionId,
      status: created.status ?? AWAITING_SCA_METHOD,
      redirectUrl: null,
      stateNonce: null,
      authorisationUrl: null,
      featureScope: created.featureScope ?? input.scopes ?? [],
      expiresAt: created.expiresAt ? new Date(created.expiresAt) : null,
      transactionsFrom: null,
      transactionsTo: null,
      flow: 'EMBEDDED',
    });
    const status = await this.afterEmbeddedStep(consent, created, subApplication, requestId);
    return {
      id: consent.id,
      status,
      institutionId: consent.institutionId,
      ...(status === AWAITING_SCA_METHOD
        ? {
            scaMethods: (created.scaMethods ?? []).map((m) => ({
              id: m.id,
              type: m.type ?? null,
              description: m.description ?? null,
            })),
          }
        : {}),
      ...(consent.expiresAt ? { expiresAt: consent.expiresAt.toISOString() } : {}),
    };
  }

  async selectScaMethod(
    caller: ConsentsCaller,
    consentId: string,
    scaMethodId: string,
    requestId?: string,
  ): Promise<{ id: string; status: string }> {
    const consent = await this.embeddedConsent(caller, consentId, AWAITING_SCA_METHOD);
    return this.embeddedStep(consent, { selectedScaMethod: { id: scaMethodId } }, 'scaMethodId', requestId);
  }

  async submitScaCode(
    caller: ConsentsCaller,
    consentId: string,
    code: string,
    requestId?: string,
  ): Promise<{ id: string; status: string }> {
    const consent = await this.embeddedConsent(caller, consentId, AWAITING_SCA_CODE);
    return this.embeddedStep(consent, { scaCode: code }, 'code', requestId);
  }

  /**
   * The worker's poll after the SCA code: asks the upstream until the consent is authorised (then stores
   * it like the redirect callback does) or finally failed (then marks it), within a deadline counted from
   * `startedAt` (the job's creation, so a retried job does not start the clock again). Safe to run twice:
   * a consent that is no longer awaiting is left alone.
   */
  async pollEmbedded(
    merchantId: string,
    consentId: string,
    startedAt: number,
    options = EMBEDDED_POLL,
  ): Promise<{ status: string }> {
    const consent = await this.consents.findOne(merchantId, consentId);
    if (!consent) throw consentNotFound();
    if (consent.flow !== 'EMBEDDED' || consent.status !== AWAITING) return { status: consent.status };
    const subApplication = await this.consents.subApplicationOf(merchantId);
    const deadline = startedAt + options.deadlineMs;
    let delay = options.firstDelayMs;
    for (;;) {
      const upstream = (
        await this.upstream.getConsent(consent.upstreamConsentId, {
          subApplication,
          institutionId: consent.institutionId,
          deadlineMs: Math.max(1_000, deadline - Date.now()),
        })
      ).data;
      if (upstream.status === 'AUTHORIZED') {
        await this.storeAuthorisation(consent, upstream, subApplication);
        return { status: 'AUTHORIZED' };
      }
      if (FINAL_FAILURE_STATUSES.includes(upstream.status)) {
        await this.consents.markFailed(
          merchantId,
          consentId,
          upstream.status,
          `EMBEDDED_${upstream.status}`,
          'The institution ended the authorisation',
        );
        return { status: upstream.status };
      }
      if (Date.now() + delay > deadline) {
        await this.consents.markFailed(
          merchantId,
          consentId,
          'FAILED',
          'EMBEDDED_TIMEOUT',
          `Not authorised within ${options.deadlineMs / 1000} s of the SCA code`,
        );
        return { status: 'FAILED' };
      }
      await wait(delay);
      delay = Math.min(options.maxDelayMs, delay * 2);
    }
  }

  private async embeddedConsent(caller: ConsentsCaller, consentId: string, expected: string) {
    const consent = await this.consents.findOne(caller.merchantId, consentId, caller.userId);
    if (!consent) throw consentNotFound();
    if (consent.flow !== 'EMBEDDED' || consent.status !== expected) {
      throw wrongState(`The consent is ${consent.status}; this step needs ${expected}.`);
    }
    return consent;
  }

  private async embeddedStep(
    consent: StoredConsent,
    update: { selectedScaMethod: { id: string } } | { scaCode: string },
    field: string,
    requestId?: string,
  ): Promise<{ id: string; status: string }> {
    const subApplication = await this.consents.subApplicationOf(consent.merchantId);
    let answer: AuthorisationResponse;
    try {
      answer = (
        await this.upstream.updateEmbeddedAccountAuthorisation(
          consent.upstreamConsentId,
          { institutionId: consent.institutionId, ...update },
          { subApplication, requestId },
        )
      ).data;
    } catch (error) {
      await this.syncFinalFailure(consent, subApplication, requestId);
      throw mapUpstreamFailure(error, field);
    }
    return {
      id: consent.id,
      status: await this.afterEmbeddedStep(consent, answer, subApplication, requestId),
    };
  }

  /** After a refused step: the bank may have given up (three wrong codes), which the merchant must see. */
  private async syncFinalFailure(consent: StoredConsent, subApplication?: string, requestId?: string) {
    try {
      const { status } = (
        await this.upstream.getConsent(consent.upstreamConsentId, {
          subApplication,
          institutionId: consent.institutionId,
          requestId,
        })
      ).data;
      if (FINAL_FAILURE_STATUSES.includes(status)) {
        await this.consents.markFailed(
          consent.merchantId,
          consent.id,
          status,
          `EMBEDDED_${status}`,
          'The institution ended the authorisation',
        );
      }
    } catch {
      // Best effort: the step's own failure is what the caller is told about.
    }
  }

  /** Records the upstream's new status; once the bank has the code, the worker polls for the outcome. */
  private async afterEmbeddedStep(
    consent: StoredConsent,
    answer: AuthorisationResponse,
    subApplication: string | undefined,
    requestId?: string,
  ): Promise<string> {
    const status = answer.status ?? consent.status;
    if (status === 'AUTHORIZED' && answer.consentToken) {
      await this.storeAuthorisation(consent, answer, subApplication, requestId);
      return status;
    }
    if (status !== consent.status)
      await this.consents.moveStatus(consent.merchantId, consent.id, consent.status, status);
    if (status === AWAITING) {
      await this.jobs.enqueue(
        'consents.poll-embedded',
        { merchantId: consent.merchantId, consentId: consent.id },
        { jobId: pollEmbeddedJobId(consent.id) },
      );
    }
    return status;
  }

  // ---- re-authorisation and pre-authorisation update

  /**
   * Asks the upstream to re-authorise (PATCH with the stored token). The bank's new page is answered and
   * shown on the consent while pending; the existing callback completes it with a new token and expiry.
   */
  async reauthorise(
    caller: ConsentsCaller,
    consentId: string,
    redirectUrl: string,
    requestId?: string,
  ): Promise<{ id: string; status: string; authorisationUrl: string }> {
    const { consent, token } = await this.redirectConsentWithToken(caller, consentId);
    const user = await this.consents.findUserForAuthorisation(consent.merchantId, consent.userId);
    if (!user) throw consentNotFound();
    this.checkRedirectUrl(redirectUrl, user.merchant.frontendOrigins);
    let answer: AuthorisationResponse;
    try {
      answer = (
        await this.upstream.reauthoriseAccount({
          consent: token,
          institutionId: consent.institutionId,
          subApplication: user.merchant.subApplicationId ?? undefined,
          requestId,
        })
      ).data;
    } catch (error) {
      throw mapUpstreamFailure(error);
    }
    // Without the bank's page and the upstream's state for this round the return could not be bound.
    if (!answer.authorisationUrl || !answer.state) {
      throw new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream gave no re-authorisation link.');
    }
    const status = answer.status ?? AWAITING_REAUTHORISATION;
    await this.consents.markReauthorisationPending(consent.merchantId, consent.id, {
      status,
      reauthorisationUrl: answer.authorisationUrl,
      redirectUrl,
      upstreamState: answer.state,
    });
    return { id: consent.id, status, authorisationUrl: answer.authorisationUrl };
  }

  /**
   * New terms for a consent (upstream PUT). The upstream sends the PSU back to the bank, so the answer
   * carries a new `authorisationUrl`, and the callback is bound again with a fresh signed state.
   */
  async updatePreAuthorisation(
    caller: ConsentsCaller,
    consentId: string,
    input: PreAuthorisationInput,
    requestId?: string,
  ) {
    const { consent, token } = await this.redirectConsentWithToken(caller, consentId);
    const user = await this.consents.findUserForAuthorisation(consent.merchantId, consent.userId);
    if (!user) throw consentNotFound();
    const redirectUrl = input.redirectUrl ?? consent.redirectUrl;
    if (!redirectUrl) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', {
        details: [{ field: 'redirectUrl', issue: 'is required' }],
      });
    }
    this.checkRedirectUrl(redirectUrl, user.merchant.frontendOrigins);
    const nonce = ConsentStateSigner.newNonce();
    const state = this.signer.sign({ merchantId: consent.merchantId, consentId: consent.id, nonce });
    const expiresAt = parseDate(input.expiresAt);
    const transactionsFrom = parseDate(input.transactionsFrom);
    const transactionsTo = parseDate(input.transactionsTo);
    let answer: AuthorisationResponse;
    try {
      answer = (
        await this.upstream.updatePreAuthorisation(
          {
            applicationUserId: user.applicationUserId,
            institutionId: consent.institutionId,
            callback: `${this.config.api.publicUrl}/v1/callbacks/consents`,
            oneTimeToken: true,
            forwardParameters: [`${STATE_PARAMETER}=${state}`],
            accountRequest: {
              featureScope: input.scopes,
              ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
              ...(transactionsFrom ? { transactionFrom: transactionsFrom.toISOString() } : {}),
              ...(transactionsTo ? { transactionTo: transactionsTo.toISOString() } : {}),
            },
          },
          {
            consent: token,
            institutionId: consent.institutionId,
            subApplication: user.merchant.subApplicationId ?? undefined,
            requestId,
          },
        )
      ).data;
    } catch (error) {
      throw mapUpstreamFailure(error, 'scopes');
    }
    const status = answer.status ?? AWAITING;
    const featureScope = answer.featureScope ?? input.scopes;
    const newExpiry = answer.expiresAt ? new Date(answer.expiresAt) : expiresAt;
    await this.consents.markPreAuthorisationUpdated(consent.merchantId, consent.id, {
      status,
      authorisationUrl: answer.authorisationUrl ?? null,
      redirectUrl,
      stateNonce: nonce,
      featureScope,
      expiresAt: newExpiry,
      ...(transactionsFrom ? { transactionsFrom } : {}),
      ...(transactionsTo ? { transactionsTo } : {}),
    });
    return {
      id: consent.id,
      status,
      featureScope,
      ...(answer.authorisationUrl ? { authorisationUrl: answer.authorisationUrl } : {}),
      ...(newExpiry ? { expiresAt: newExpiry.toISOString() } : {}),
    };
  }

  /** A redirect-flow consent the caller may see, with its token opened (the upstream needs it as the header). */
  private async redirectConsentWithToken(caller: ConsentsCaller, consentId: string) {
    const found = await this.consents.findWithToken(caller.merchantId, consentId, caller.userId);
    if (!found) throw consentNotFound();
    const { consent, sealed } = found;
    // An embedded consent has no callback to come back to; a revoked or never-authorised one has no token.
    if (consent.flow !== 'REDIRECT') throw wrongState('Only a consent of the redirect flow can do this.');
    if (!sealed) {
      throw new DomainError(ErrorCode.CONSENT_NOT_AUTHORISED, `The consent is ${consent.status}.`);
    }
    return { consent, token: this.box.open(sealed, consent.id) };
  }

  async get(caller: ConsentsCaller, consentId: string): Promise<ConsentView> {
    const consent = await this.consents.findOne(caller.merchantId, consentId, caller.userId);
    if (!consent) throw consentNotFound();
    const accounts = await this.consents.accountSyncStates(caller.merchantId, consent.id);
    return { ...toConsentView(consent), sync: summariseSync(accounts) };
  }

  async listForUser(caller: ConsentsCaller, userId: string, limit: number, beforeId?: string) {
    if (caller.userId && caller.userId !== userId) throw userNotFound();
    if (!(await this.consents.userExists(caller.merchantId, userId))) throw userNotFound();
    const { rows, more } = await this.consents.listForUser(caller.merchantId, userId, limit, beforeId);
    return { consents: rows.map(toConsentView), nextBeforeId: more ? rows.at(-1)!.id : undefined };
  }

  /** Revokes upstream, then locally. Idempotent: revoking a revoked consent, or one the upstream no longer knows, is done. */
  async revoke(caller: ConsentsCaller, consentId: string, requestId?: string): Promise<void> {
    const consent = await this.consents.findOne(caller.merchantId, consentId, caller.userId);
    if (!consent) throw consentNotFound();
    if (consent.status === 'REVOKED') return;
    try {
      await this.upstream.deleteConsent(consent.upstreamConsentId, {
        subApplication: await this.consents.subApplicationOf(consent.merchantId),
        institutionId: consent.institutionId,
        requestId,
      });
    } catch (error) {
      if (!(error instanceof UpstreamError && error.kind === 'NOT_FOUND')) throw mapUpstreamFailure(error);
    }
    await this.consents.markRevoked(consent.merchantId, consent.id);
  }

  /**
   * The merchant's page must be an absolute http(s) URL; when the merchant lists frontend origins, its
   * origin must be one of them, so a leaked session cannot send the user (and the outcome) elsewhere.
   */
  private checkRedirectUrl(redirectUrl: string, frontendOrigins: string[]): void {
    const refuse = (issue: string) =>
      new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', {
        details: [{ field: 'redirectUrl', issue }],
      });
    let url: URL;
    try {
      url = new URL(redirectUrl);
    } catch {
      throw refuse('must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw refuse('must be an absolute http(s) URL');
    if (url.username || url.password) throw refuse('must not carry credentials');
    if (frontendOrigins.length > 0 && !frontendOrigins.includes(url.origin))
      throw refuse("must be on one of the merchant's frontendOrigins");
  }
}
