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
