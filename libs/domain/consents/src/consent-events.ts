import type { MerchantEventType, NewMerchantEvent } from '#libs/domain/events';

const WITH_EXPIRY = new Set<MerchantEventType>([
  'consent.authorized',
  'consent.expiring',
  'consent.reauthorisation_required',
  'consent.reauthorisation_not_extended',
]);
const WITH_REASON = new Set<MerchantEventType>(['consent.failed', 'consent.expired', 'consent.revoked']);

/** What a consent event says of its consent, whichever writer records it (one consent, or a batch). */
export interface AnnouncedConsent {
  id: string;
  merchantId: string;
  userId: string;
  kind: string;
  status: string;
  institutionId: string;
  expiresAt: Date | null;
  lastErrorCode: string | null;
  reauthorisationUrl: string | null;
}

/** The `consent.*` merchant event for a consent as it is after the change. */
export function consentEvent(type: MerchantEventType, consent: AnnouncedConsent): NewMerchantEvent {
  return {
    merchantId: consent.merchantId,
    userId: consent.userId,
    type,
    data: {
      consentId: consent.id,
      kind: consent.kind,
      status: consent.status,
      institutionId: consent.institutionId,
      ...(WITH_EXPIRY.has(type) ? { expiresAt: consent.expiresAt?.toISOString() ?? null } : {}),
      // Still AUTHORIZED: the bank needs the user present to be asked, so the link is ours, for them to
      // follow (the consent stays usable until its expiry); else the bank's page, access suspended.
      ...(type === 'consent.reauthorisation_required'
        ? {
            reauthorisationUrl: consent.reauthorisationUrl,
            userPresenceRequired: consent.status === 'AUTHORIZED',
          }
        : {}),
      ...(WITH_REASON.has(type) ? { reason: consent.lastErrorCode } : {}),
    },
  };
}
