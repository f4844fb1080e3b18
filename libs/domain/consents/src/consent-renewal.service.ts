import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type MerchantId, type TenantCaller, tenantOf } from '#libs/context';
import { checkPsuHeaders, InstitutionsService } from '#libs/domain/institutions';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode, invalidRequest } from '#libs/errors';
import {
  type AuthorisationResponse,
  type PsuHeaders,
  UPSTREAM_CLIENT,
  type UpstreamClient,
} from '#libs/upstream-client';
import { consentNotFound, reconnectRequired, wrongState } from './consent.errors.js';
import { ConsentRepository } from './consent.repository.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStateSigner } from './consent-state.signer.js';
import { canStart, ConsentStatus, type ConsentTransition, FINAL_FAILURE_STATUSES } from './consent-status.js';
import { accountTermsAt, type ConsentTerms } from './consent-terms.js';
import { ConsentTokenVault } from './consent-token.vault.js';
import { shownStatus } from './consent-views.js';
import { checkRedirectUrl, redirectAuthorisation } from './redirect-url.js';

export interface PreAuthorisationInput extends ConsentTerms {
  scopes: string[];
  redirectUrl?: string;
}

/** A guarded write found the consent moved on (revoked, say) while the upstream was answering. */
const notNow = (found: string | null) =>
  wrongState(`The consent is ${found ?? 'gone'} now; this step no longer applies.`);

/**
 * Re-authorisation and pre-authorisation update of a redirect-flow consent: both send the stored token
 * upstream and the user back to the bank, and the redirect flow's callback completes them. Kept whole:
 * both start from the same checks (`renewable`) before the token leaves, and so does every renewal asked
 * elsewhere (the expiry scan's, the user-present link's: ConsentRenewalLinkService), through
 * `requestReauthorisation`.
 */
@Injectable()
export class ConsentRenewalService {
  private readonly signer: ConsentStateSigner;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly consents: ConsentRepository,
    private readonly state: ConsentStateRepository,
    private readonly vault: ConsentTokenVault,
    private readonly institutions: InstitutionsService,
  ) {
    this.signer = new ConsentStateSigner(config.crypto.signingSecret);
  }

  /**
   * Asks the upstream to re-authorise (PATCH with the stored token). The bank's new page is answered and
   * shown on the consent while pending; the callback completes it with a new token and expiry.
   */
  async reauthorise(
    caller: TenantCaller,
    consentId: string,
    redirectUrl: string,
    psu: PsuHeaders = {},
  ): Promise<{ id: string; status: string; authorisationUrl: string }> {
    return this.requestReauthorisation(tenantOf(caller), caller.userId, consentId, redirectUrl, psu);
  }

  /**
   * The one way a renewal asks the bank, through `renewable`'s checks: the caller's here, and the
   * lifecycle's and the user-present link's (ConsentRenewalLinkService). A session's `userId` confines it
   * to that user's consents; the lifecycle (and a merchant) passes none.
   */
  async requestReauthorisation(
    merchantId: MerchantId,
    userId: string | undefined,
    consentId: string,
    redirectUrl: string,
    psu: PsuHeaders = {},
  ) {
    const { consent, user, options } = await this.renewable(
      merchantId,
      userId,
      consentId,
      'requestReauthorisation',
    );
    checkRedirectUrl(redirectUrl, user.merchant.frontendOrigins);
    const institution = await this.institutions.offered(consent.institutionId);
    if (institution) checkPsuHeaders(institution, 'connect', psu);
    let answer: AuthorisationResponse;
    try {
      answer = (await this.upstream.consents.reauthoriseAccount({ ...options, psu })).data;
    } catch (error) {
      // A refusal (its 4xx) is of this consent, and lasts: the caller's 400, not an outage to retry.
      throw mapUpstreamFailure(error, { resource: 'consent', field: 'consentId' });
    }
    // Without the bank's page and the upstream's state for this round the return could not be bound.
    if (!answer.authorisationUrl || !answer.state) {
      throw new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream gave no re-authorisation link.');
    }
    const result = await this.state.markReauthorisationPending(merchantId, consent.id, {
      reauthorisationUrl: answer.authorisationUrl,
      redirectUrl,
      upstreamState: answer.state,
    });
    if (!result.applied) throw notNow(result.found);
    return {
      id: consent.id,
      status: ConsentStatus.AwaitingReauthorisation,
      authorisationUrl: answer.authorisationUrl,
    };
  }

  /**
   * New terms for a consent (upstream PUT). The upstream sends the user back to the bank, so the answer
   * carries a new `authorisationUrl`, and the callback is bound again with a fresh signed state.
   */
  async updatePreAuthorisation(
    caller: TenantCaller,
    consentId: string,
    input: PreAuthorisationInput,
    psu: PsuHeaders = {},
  ) {
    const tenant = tenantOf(caller);
    const { consent, user, options } = await this.renewable(
      tenant,
      caller.userId,
      consentId,
      'updatePreAuthorisation',
    );
    const redirectUrl = input.redirectUrl ?? consent.redirectUrl;
    if (!redirectUrl) {
      throw invalidRequest([{ field: 'redirectUrl', issue: 'is required' }]);
    }
    checkRedirectUrl(redirectUrl, user.merchant.frontendOrigins);
    const nonce = ConsentStateSigner.newNonce();
    const state = this.signer.sign({ merchantId: consent.merchantId, consentId: consent.id, nonce });
    const { dates, accountRequest } = await accountTermsAt(
      this.institutions,
      consent.institutionId,
      'REDIRECT',
      input,
      psu,
    );
    const request = redirectAuthorisation(this.config.api.publicUrl, state, accountRequest);
    const { expiresAt, transactionsFrom, transactionsTo } = dates;
    let answer: AuthorisationResponse;
    try {
      answer = (
        await this.upstream.consents.updatePreAuthorisation(
          { applicationUserId: user.applicationUserId, institutionId: consent.institutionId, ...request },
          { ...options, psu },
        )
      ).data;
    } catch (error) {
      throw mapUpstreamFailure(error, { field: 'scopes' });
    }
    const featureScope = answer.featureScope ?? input.scopes;
    const newExpiry = answer.expiresAt ? new Date(answer.expiresAt) : expiresAt;
    const result = await this.state.markPreAuthorisationUpdated(tenant, consent.id, {
      authorisationUrl: answer.authorisationUrl ?? null,
      redirectUrl,
      stateNonce: nonce,
      featureScope,
      expiresAt: newExpiry,
      ...(transactionsFrom ? { transactionsFrom } : {}),
      ...(transactionsTo ? { transactionsTo } : {}),
    });
    if (!result.applied) throw notNow(result.found);
    return {
      id: consent.id,
      status: ConsentStatus.AwaitingAuthorisation,
      featureScope,
      ...(answer.authorisationUrl ? { authorisationUrl: answer.authorisationUrl } : {}),
      expiresAt: newExpiry.toISOString(),
    };
  }

  /**
   * A redirect-flow consent the caller may see, in a status `transition` may start from (checked before
   * the upstream is asked anything), its user, and the options of the upstream call (the token opened:
   * the upstream needs it as the `consent` header).
   */
  private async renewable(
    merchantId: MerchantId,
    userId: string | undefined,
    consentId: string,
    transition: ConsentTransition,
  ) {
    const found = await this.consents.findWithToken(merchantId, consentId, userId);
    if (!found) throw consentNotFound();
    const { consent, sealed } = found;
    // An ended consent has one way back, whatever its flow: a new consent, to which the accounts carry over.
    // Past its expiry it has ended too, whether or not the row says EXPIRED yet (every reader agrees).
    const status = shownStatus(consent);
    if (consent.kind === 'ACCOUNT' && FINAL_FAILURE_STATUSES.includes(status as ConsentStatus)) {
      throw reconnectRequired({ ...consent, status });
    }
    // An embedded consent has no callback to come back to; a never-authorised one has no token.
    if (consent.flow !== 'REDIRECT') throw wrongState('Only a consent of the redirect flow can do this.');
    const token = this.vault.open(sealed, consent.id);
    if (!token) throw new DomainError(ErrorCode.CONSENT_NOT_AUTHORISED, `The consent is ${consent.status}.`);
    if (!canStart(transition, consent.status)) {
      throw wrongState(`The consent is ${consent.status}; it cannot be renewed from there.`);
    }
    const user = await this.consents.findUserForAuthorisation(merchantId, consent.userId);
    if (!user) throw consentNotFound();
    const options = {
      consent: token,
      institutionId: consent.institutionId,
      subApplication: user.merchant.subApplicationId ?? undefined,
    };
    return { consent, user, options };
  }
}
