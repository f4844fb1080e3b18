import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type MerchantId, tenantOfRecord } from '#libs/context';
import { InstitutionsService } from '#libs/domain/institutions';
import { invalidRequest } from '#libs/errors';
import type { PsuHeaders } from '#libs/upstream-client';
import { consentNotFound, reconnectRequired, wrongState } from './consent.errors.js';
import { ConsentRepository } from './consent.repository.js';
import { ConsentExpiryRepository } from './consent-expiry.repository.js';
import { ConsentRenewalService } from './consent-renewal.service.js';
import { type ConsentStatus, FINAL_FAILURE_STATUSES } from './consent-status.js';
import { ConsentTokenVault } from './consent-token.vault.js';
import { shownStatus } from './consent-views.js';
import { ReauthorisationLinkSigner } from './reauthorisation-link.js';

/**
 * The renewal before expiry, and its user-present link: a protocol of its own (a signed link offered
 * instead of asking the bank, a page read that must change nothing, a button press that asks the bank),
 * apart from the caller-driven renewals of ConsentRenewalService. Whenever it asks the bank it goes through
 * ConsentRenewalService.requestReauthorisation, so every renewal passes the same `renewable` checks.
 */
@Injectable()
export class ConsentRenewalLinkService {
  private readonly links: ReauthorisationLinkSigner;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly renewal: ConsentRenewalService,
    private readonly consents: ConsentRepository,
    private readonly vault: ConsentTokenVault,
    private readonly institutions: InstitutionsService,
    private readonly expiry: ConsentExpiryRepository,
  ) {
    this.links = new ReauthorisationLinkSigner(config.crypto.signingSecret, config.api.publicUrl);
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
    await this.renewal.requestReauthorisation(merchantId, undefined, consentId, consent.redirectUrl);
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
    const asked = await this.renewal.requestReauthorisation(
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
}
