import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type MerchantId, type TenantCaller, tenantOf, tenantOfRecord } from '#libs/context';
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
import { ConsentExpiryRepository } from './consent-expiry.repository.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStateSigner } from './consent-state.signer.js';
import { canStart, ConsentStatus, type ConsentTransition, FINAL_FAILURE_STATUSES } from './consent-status.js';
import { accountTermsAt, type ConsentTerms } from './consent-terms.js';
import { ConsentTokenVault } from './consent-token.vault.js';
import { shownStatus } from './consent-views.js';
import { ReauthorisationLinkSigner } from './reauthorisation-link.js';
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
 * both start from the same checks (`renewable`) before the token leaves.
 */
@Injectable()
export class ConsentRenewalService {
  private readonly signer: ConsentStateSigner;
  private readonly links: ReauthorisationLinkSigner;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly consents: ConsentRepository,
    private readonly state: ConsentStateRepository,
    private readonly vault: ConsentTokenVault,
    private readonly institutions: InstitutionsService,
    private readonly expiry: ConsentExpiryRepository,
  ) {
    this.signer = new ConsentStateSigner(config.crypto.signingSecret);
    this.links = new ReauthorisationLinkSigner(config.crypto.signingSecret, config.api.publicUrl);
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
   * The lifecycle's re-authorisation before expiry: as the merchant's, with the page the merchant gave
   * last (the consent's redirectUrl), for the system rather than a caller. No user is present, so at a
   * bank that requires PSU headers to connect (the user's own address among them) the bank is not asked:
   * the merchant is given our link instead, to send the user to, and the consent stays AUTHORIZED
   * until then ('link'); elsewhere the bank is asked and access waits for the user ('asked').
   */
  async reauthoriseBeforeExpiry(merchantId: MerchantId, consentId: string): Promise<'asked' | 'link'> {
    const found = await this.consents.findWithToken(merchantId, consentId, undefined);
    const consent = found?.consent;
    if (!consent?.redirectUrl) throw wrongState('The consent has no page to send the user back to.');
    const institution = await this.institutions.offered(consent.institutionId);
    if (institution && institution.psuHeaders.connect.length > 0 && consent.expiresAt) {
      const url = this.links.url({ merchantId, consentId }, consent.expiresAt);
      await this.expiry.offerUserPresentRenewal(merchantId, consentId, url);
      return 'link';
    }
    await this.requestReauthorisation(merchantId, undefined, consentId, consent.redirectUrl);
    return 'asked';
  }

  /**
   * What our renewal link stands for now: 'due' while its renewal is still to be made (or finished at the
   * bank), 'renewed' once it is. Reading it changes nothing: opening the link (a mail scanner, a
   * prefetch, a reload) must not suspend the consent, so only {@link reauthoriseByLink} asks the bank.
   */
  async linkedRenewal(link: string): Promise<'due' | 'renewed'> {
    return (await this.linked(link)).due ? 'due' : 'renewed';
  }

  /**
   * The user pressed the link page's button: the bank is asked now, with their own address and the login
   * ids given at creation, and their browser goes on to the bank's page (the answer). The usual callback
   * completes it. Null, asking nothing, when the link's renewal is done already.
   */
  async reauthoriseByLink(link: string, ipAddress: string | undefined): Promise<string | null> {
    const { merchantId, found, redirectUrl, due } = await this.linked(link);
    if (!due) return null;
    const ids = this.vault.open(found.sealedPsuIds, found.consent.id);
    const stored = ids ? (JSON.parse(ids) as { id?: string; corporateId?: string }) : {};
    const psu: PsuHeaders = {
      ...(stored.id ? { id: stored.id } : {}),
      ...(stored.corporateId ? { corporateId: stored.corporateId } : {}),
      ...(ipAddress ? { ipAddress } : {}),
    };
    const asked = await this.requestReauthorisation(
      merchantId,
      undefined,
      found.consent.id,
      redirectUrl,
      psu,
    );
    return asked.authorisationUrl;
  }

  /** The consent a valid link names, and whether its renewal is still to be made; an ended one has none. */
  private async linked(link: string) {
    const linked = this.links.verify(link);
    if (!linked) throw invalidRequest([{ field: 'link', issue: 'is invalid or expired' }]);
    const merchantId = tenantOfRecord(linked);
    const found = await this.consents.findWithToken(merchantId, linked.consentId, undefined);
    const redirectUrl = found?.consent.redirectUrl;
    if (!found || !redirectUrl) throw consentNotFound();
    const status = shownStatus(found.consent);
    if (FINAL_FAILURE_STATUSES.includes(status as ConsentStatus)) {
      throw reconnectRequired({ ...found.consent, status });
    }
    const due = ReauthorisationLinkSigner.due({ ...found.consent, status }, link);
    return { merchantId, found, redirectUrl, due };
  }

  /** A session's `userId` confines it to that user's consents; the lifecycle (and a merchant) passes none. */
  private async requestReauthorisation(
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
