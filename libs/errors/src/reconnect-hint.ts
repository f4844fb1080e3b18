/**
 * The one way back for a data consent that has ended (revoked, expired, or a token that can no longer be
 * used): a new consent for the same institution, to which the user's accounts carry over
 * (AccountPlacementRepository.upsertFromUpstream). Every message that gives this advice words it here, naming the
 * user and institution when the caller knows them. Here rather than in the consents library, because the
 * upstream failure mapper, below it, says it too.
 */
export const reconnectHint = (userId?: string, institutionId?: string): string =>
  `connect the bank again with a new consent: POST /v1/users/${userId ?? '{userId}'}/consents with ` +
  `${institutionId ? `institutionId ${institutionId}` : 'the same institutionId'}; the user's accounts carry ` +
  'over to it with their ids and transactions.';

/**
 * The way back for a consent that waits for its user's re-authorisation (access suspended until they
 * approve at the bank): not a new consent, but the renewal already asked for.
 */
export const reauthoriseHint = (consentId: string): string =>
  `the user renews it at the bank: send them to the consent's reauthorisationUrl (GET /v1/consents/${consentId}); ` +
  'syncs and reads resume once they approve.';
