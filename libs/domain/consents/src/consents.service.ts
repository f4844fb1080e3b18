import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { SecretBox } from '#libs/crypto';
import { AccountRepository } from '#libs/domain/accounts';
import { DomainError, ErrorCode } from '#libs/errors';
import { LOGGER, type AppLogger } from '#libs/observability';
import { UPSTREAM_CLIENT, UpstreamError, type UpstreamClient } from '#libs/upstream-client';
import { ConsentStateSigner } from './consent-state.signer.js';
import { AWAITING, ConsentRepository, type StoredConsent } from './consent.repository.js';
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
}

/** The query of the upstream's redirect to our callback (names as the upstream sends them). */
export interface ConsentCallback {
  bffState?: string;
  oneTimeToken?: string;
  consentId?: string;
  error?: string;
  errorDescription?: string;
}

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
   * The browser's return from the bank. Verifies and spends the state first (nothing else is trusted
   * before that, the redirect target included), then exchanges the one-time token, stores the consent
   * token encrypted, stores the accounts, and answers where to send the browser.
   */
  async completeCallback(query: ConsentCallback, requestId?: string): Promise<string> {
    const state = query.bffState ? this.signer.verify(query.bffState) : null;
    if (!state) throw badCallback();
    const consent = await this.consents.claimCallback(state.merchantId, state.consentId, state.nonce);
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
    let token: string;
    try {
      const exchanged = (
        await this.upstream.exchangeOneTimeToken(query.oneTimeToken, { subApplication, requestId })
      ).data;
      if (exchanged.id !== consent.upstreamConsentId || !exchanged.consentToken) {
        throw new Error('The one-time token named another consent or carried no token');
      }
      token = exchanged.consentToken;
      const sealed = this.box.seal(token, consent.id);
      await this.consents.markAuthorised(consent.merchantId, consent.id, {
        status: exchanged.status ?? 'AUTHORIZED',
        tokenCiphertext: sealed.ciphertext,
        tokenKeyId: sealed.keyId,
        authorizedAt: exchanged.authorizedAt ? new Date(exchanged.authorizedAt) : new Date(),
        expiresAt: exchanged.expiresAt ? new Date(exchanged.expiresAt) : consent.expiresAt,
        featureScope: exchanged.featureScope ?? consent.featureScope,
        institutionConsentId: exchanged.institutionConsentId ?? null,
      });
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
        'consent callback: fetching accounts failed; left to the background sync',
      );
    }
    return redirect({ status: 'AUTHORIZED' });
  }

  async get(caller: ConsentsCaller, consentId: string): Promise<ConsentView> {
    const consent = await this.consents.findOne(caller.merchantId, consentId, caller.userId);
    if (!consent) throw consentNotFound();
    return toConsentView(consent);
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
