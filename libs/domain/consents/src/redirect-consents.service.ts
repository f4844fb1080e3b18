import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { assertActsFor, describeWork, type TenantCaller, tenantOf } from '#libs/context';
import { checkPsuHeaders, InstitutionsService } from '#libs/domain/institutions';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { uuidV7 } from '#libs/ids';
import { publicRouteUrl } from '#libs/routes';
import {
  type AuthorisationResponse,
  type CallOptions,
  type PsuHeaders,
  UPSTREAM_CLIENT,
  type UpstreamClient,
} from '#libs/upstream-client';
import { userNotFound } from './consent.errors.js';
import { ConsentRepository, type StoredConsent } from './consent.repository.js';
import { ConsentStateSigner } from './consent-state.signer.js';
import { ConsentStatus } from './consent-status.js';
import { accountTermsAt, type ConsentTerms } from './consent-terms.js';
import { ConsentTokenVault } from './consent-token.vault.js';
import { checkRedirectUrl, redirectAuthorisation, STATE_PARAMETER } from './redirect-url.js';

/** What every redirect-flow authorisation request carries besides the kind's own body. */
export interface RedirectRequest {
  applicationUserId: string;
  institutionId: string;
  callback: string;
  oneTimeToken: true;
  forwardParameters: string[];
}

/** A payment or sweeping VRP consent: the kind's terms are kept on the row for the payments made under it. */
export interface CreatePaymentConsentInput {
  kind: 'PAYMENT' | 'VRP_SWEEPING';
  institutionId: string;
  redirectUrl: string;
  expiresAt?: Date | null;
  vrpControlParameters?: object;
  vrpInitiationDetails?: object;
  /** The PSU headers for the authorisation call, checked against what the bank requires to pay. */
  psu?: PsuHeaders;
}

export interface CreateConsentInput extends ConsentTerms {
  institutionId: string;
  redirectUrl: string;
  /**
   * Whether the expiry scan asks the bank to re-authorise the consent in its last days (suspending
   * access until the user does). Omitted: yes, unless the consent is asked to end within those days.
   */
  autoReauthorise?: boolean;
}

/**
 * The redirect flow's start: the bank's page for the user (ConsentCallbackService takes the browser's return).
 */
@Injectable()
export class RedirectConsentsService {
  private readonly signer: ConsentStateSigner;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly consents: ConsentRepository,
    private readonly institutions: InstitutionsService,
    private readonly vault: ConsentTokenVault,
  ) {
    this.signer = new ConsentStateSigner(config.crypto.signingSecret);
  }

  async create(caller: TenantCaller, userId: string, input: CreateConsentInput, psu: PsuHeaders = {}) {
    const { user, id, nonce, state } = await this.prepare(caller, userId, input);
    const { scopes, dates, accountRequest } = await accountTermsAt(
      this.institutions,
      input.institutionId,
      'REDIRECT',
      input,
      psu,
    );
    const request = redirectAuthorisation(this.config.api.publicUrl, state, accountRequest);
    const { expiresAt, transactionsFrom, transactionsTo } = dates;
    // A consent asked to be short would be suspended by its first scan: only when the merchant says so.
    const window = this.config.consents.refreshDaysBeforeExpiry * 86_400_000;
    const autoReauthorise = input.autoReauthorise ?? expiresAt.getTime() - Date.now() > window;
    const psuIds = this.sealedPsuIds(psu, id);

    const authorisation = (
      await this.upstream.consents
        .createAccountAuthorisation(
          { applicationUserId: user.applicationUserId, institutionId: input.institutionId, ...request },
          { subApplication: user.merchant.subApplicationId ?? undefined, psu },
        )
        .catch((error: unknown) => {
          throw mapUpstreamFailure(error, { field: 'institutionId' });
        })
    ).data;
    // Without the bank's page the user has nowhere to go: the merchant is told, as for a renewal.
    const authorisationUrl = authorisation.authorisationUrl;
    if (!authorisationUrl) {
      throw new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream gave no authorisation link.');
    }
    // What we asked for (90 days at most, when the merchant named nothing) counts until the authorisation
    // names the real expiry: there is always one.
    const expiry = authorisation.expiresAt ? new Date(authorisation.expiresAt) : expiresAt;
    const consent = await this.consents.createAwaiting(tenantOf(caller), {
      id,
      userId,
      upstreamConsentId: authorisation.id,
      institutionId: input.institutionId,
      // The callback only completes an awaiting consent, whatever word the upstream used for it.
      status: ConsentStatus.AwaitingAuthorisation,
      redirectUrl: input.redirectUrl,
      stateNonce: nonce,
      authorisationUrl,
      featureScope: authorisation.featureScope ?? scopes,
      expiresAt: expiry,
      transactionsFrom,
      transactionsTo,
      autoReauthorise,
      ...(psuIds ? { psuIdsCiphertext: psuIds.tokenCiphertext, psuIdsKeyId: psuIds.tokenKeyId } : {}),
    });
    return {
      id: consent.id,
      status: consent.status,
      authorisationUrl,
      institutionId: consent.institutionId,
      expiresAt: expiry.toISOString(),
      autoReauthorise,
    };
  }

  /** The user's PSU ids, kept sealed for a renewal with the user present: their address is theirs then, not now. */
  private sealedPsuIds(psu: PsuHeaders, consentId: string) {
    return psu.id || psu.corporateId
      ? this.vault.seal(JSON.stringify({ id: psu.id, corporateId: psu.corporateId }), consentId)
      : undefined;
  }

  /**
   * A payment or sweeping VRP consent through the same redirect flow and callback as a data consent (our
   * signed single-use state, a one-time token); `ask` sends the kind's own authorisation request upstream.
   * Answers the stored consent, awaiting the user.
   */
  async createPaymentConsent(
    caller: TenantCaller,
    userId: string,
    input: CreatePaymentConsentInput,
    ask: (request: RedirectRequest, options: CallOptions) => Promise<{ data: AuthorisationResponse }>,
  ): Promise<StoredConsent> {
    const { user, id, nonce, state } = await this.prepare(caller, userId, input);
    const psu = input.psu ?? {};
    // A bank unknown here is left to the upstream to refuse, as before the PSU headers were read.
    const institution = await this.institutions.offered(input.institutionId);
    if (institution) checkPsuHeaders(institution, 'pay', psu);
    let authorisation: AuthorisationResponse;
    try {
      ({ data: authorisation } = await ask(
        {
          applicationUserId: user.applicationUserId,
          institutionId: input.institutionId,
          callback: publicRouteUrl(this.config.api.publicUrl, 'consentCallback'),
          oneTimeToken: true,
          forwardParameters: [`${STATE_PARAMETER}=${state}`],
        },
        { subApplication: user.merchant.subApplicationId ?? undefined, psu },
      ));
    } catch (error) {
      throw mapUpstreamFailure(error, { field: 'institutionId' });
    }
    return this.consents.createAwaiting(tenantOf(caller), {
      id,
      userId,
      kind: input.kind,
      upstreamConsentId: authorisation.id,
      institutionId: input.institutionId,
      status: ConsentStatus.AwaitingAuthorisation,
      redirectUrl: input.redirectUrl,
      stateNonce: nonce,
      authorisationUrl: authorisation.authorisationUrl ?? null,
      featureScope: authorisation.featureScope ?? [],
      expiresAt: authorisation.expiresAt ? new Date(authorisation.expiresAt) : (input.expiresAt ?? null),
      transactionsFrom: null,
      transactionsTo: null,
      ...(input.vrpControlParameters ? { vrpControlParameters: input.vrpControlParameters } : {}),
      ...(input.vrpInitiationDetails ? { vrpInitiationDetails: input.vrpInitiationDetails } : {}),
    });
  }

  /**
   * The user (of this caller), the redirect target checked, and a new consent id with its signed state.
   * The request's upstream calls from here on are the consent's: its call log shows a refused creation too.
   */
  private async prepare(
    caller: TenantCaller,
    userId: string,
    input: { institutionId: string; redirectUrl: string },
  ) {
    assertActsFor(caller, userId);
    const user = await this.consents.findUserForAuthorisation(tenantOf(caller), userId);
    if (!user) throw userNotFound();
    checkRedirectUrl(input.redirectUrl, user.merchant.frontendOrigins);
    const id = uuidV7();
    describeWork({ merchantId: caller.merchantId, institutionId: input.institutionId, consentId: id });
    const nonce = ConsentStateSigner.newNonce();
    const state = this.signer.sign({ merchantId: caller.merchantId, consentId: id, nonce });
    return { user, id, nonce, state };
  }
}
