import { DomainError, ErrorCode, reconnectHint } from '#libs/errors';

export const consentNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');
export const userNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');
export const wrongState = (message: string) => new DomainError(ErrorCode.CONFLICT, message);

/**
 * A data consent that has ended (revoked, expired, rejected, failed) is not renewed: its way back is a new
 * consent (reconnectHint). A re-authorisation renews a consent that is still authorised, nothing else.
 */
export const reconnectRequired = (consent: { status: string; userId: string; institutionId: string }) =>
  new DomainError(
    ErrorCode.CONSENT_NOT_AUTHORISED,
    `The consent is ${consent.status}: it cannot be renewed; ${reconnectHint(consent.userId, consent.institutionId)}`,
    {
      details: [
        { field: 'status', issue: `is ${consent.status}` },
        {
          field: 'institutionId',
          issue: `connect ${consent.institutionId} again: POST /v1/users/${consent.userId}/consents`,
        },
      ],
    },
  );
