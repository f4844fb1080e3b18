import { randomBytes } from 'node:crypto';

/**
 * A UUID v7 (RFC 9562) made here, because the consent id must be known before the row exists: it goes
 * into the signed `state` sent upstream, and the row needs the upstream consent id. v7 like the database
 * default, so ids stay in creation order and the list can page by id alone.
 */
export function uuidV7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Any RFC 9562 UUID, case-insensitive: the shape of every id we issue and of the upstream's. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID. Repositories ask before querying a `uuid` column, so a malformed id from a
 * path is "not found" rather than a Postgres cast error.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}
