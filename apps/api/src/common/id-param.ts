import { Param, type PipeTransform } from '@nestjs/common';
import { DomainError, ErrorCode } from '#libs/errors';
import { isUuid } from '#libs/ids';

/**
 * The 404 of each id a path names. Our ids are UUIDs; one that is not names nothing, and answers exactly
 * what an unknown id does, so a probe learns nothing more from a malformed id.
 */
const NOT_FOUND = {
  accountId: 'Account not found.',
  consentId: 'Consent not found.',
  deliveryId: 'Delivery not found.',
  endpointId: 'Event endpoint not found.',
  eventId: 'Event not found.',
  keyId: 'API key not found.',
  paymentId: 'Payment not found.',
  requestId: 'Hosted VRP request not found.',
  syncId: 'Sync not found.',
  userId: 'User not found.',
} as const;

class UuidPipe implements PipeTransform<string, string> {
  constructor(private readonly notFound: string) {}

  transform(value: string): string {
    if (!isUuid(value)) throw new DomainError(ErrorCode.NOT_FOUND, this.notFound);
    return value;
  }
}

/**
 * One of our ids given outside a path (an MCP tool's argument): the same 404 as `IdParam` answers for a
 * malformed one, so every door answers a probe alike.
 */
export function checkedId(name: keyof typeof NOT_FOUND, value: string): string {
  return new UuidPipe(NOT_FOUND[name]).transform(value);
}

/**
 * A path parameter that is one of our ids, checked here, at the edge, once: the services and repositories
 * behind it take it as a UUID. A route's plain `{id}` names its resource (`IdParam('id', 'Merchant')`).
 */
export function IdParam(name: keyof typeof NOT_FOUND): ParameterDecorator;
export function IdParam(name: 'id', resource: string): ParameterDecorator;
export function IdParam(name: keyof typeof NOT_FOUND | 'id', resource?: string): ParameterDecorator {
  const notFound = name === 'id' ? `${resource} not found.` : NOT_FOUND[name];
  return Param(name, new UuidPipe(notFound));
}
