import { DomainError, ErrorCode } from '#libs/http';

/** A payment without an Idempotency-Key is refused: a retried request must never pay twice. */
export function requireIdempotencyKey(key: string | undefined): string {
  if (!key) {
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'A payment needs an Idempotency-Key header.', {
      details: [{ field: 'Idempotency-Key', issue: 'is required for payments' }],
    });
  }
  return key;
}
