import { DomainError, ErrorCode } from '#libs/http';

/** Opaque cursors: base64url of what the next page starts after, so clients cannot depend on its form. */
export function encodeCursor(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined, valid: RegExp): string | undefined {
  if (cursor === undefined) return undefined;
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!valid.test(value)) {
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', {
      details: [{ field: 'cursor', issue: 'must be a cursor from meta.nextCursor' }],
    });
  }
  return value;
}

export function nextLink(path: string, limit: number, cursor: string | null): { next?: string } | undefined {
  return cursor ? { next: `${path}?limit=${limit}&cursor=${cursor}` } : undefined;
}
