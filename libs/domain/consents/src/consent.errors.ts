import { DomainError, ErrorCode } from '#libs/errors';

export const consentNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');
export const userNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');
export const wrongState = (message: string) => new DomainError(ErrorCode.CONFLICT, message);
