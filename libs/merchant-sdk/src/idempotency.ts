import type { paths } from './generated/openapi.js';

/**
 * The creating POSTs, which take an `Idempotency-Key`: the SDK sends one it made up when the caller gave
 * none, so that a retry (its own after a 429 or 503, or the caller's after a lost answer) is made once.
 */

type HeaderOf<O> = O extends { parameters: { header?: infer H } } ? NonNullable<H> : never;
type TakesIdempotencyKey<O> = [HeaderOf<O>] extends [never]
  ? false
  : 'Idempotency-Key' extends keyof HeaderOf<O>
    ? true
    : false;

/** Every path whose POST declares the `Idempotency-Key` header in the generated document. */
export type IdempotentPath = {
  [P in keyof paths]: paths[P] extends { post: infer O }
    ? TakesIdempotencyKey<O> extends true
      ? P
      : never
    : never;
}[keyof paths];

export const IDEMPOTENT_POSTS = [
  '/v1/users',
  '/v1/users/{userId}/consents',
  '/v1/users/{userId}/consents/embedded',
  '/v1/consents/{consentId}/reauthorise',
  '/v1/accounts/{accountId}/transactions/categorisation',
  '/v1/event-endpoints',
  '/v1/event-endpoints/{id}/recover',
  '/v1/merchant/api-keys',
  '/v1/users/{userId}/payments',
  '/v1/users/{userId}/vrp/consents',
  '/v1/users/{userId}/hosted/vrp-requests',
  '/v1/vrp/consents/{consentId}/payments',
] as const satisfies readonly IdempotentPath[];

// The list is whole: a path the document gives the header and the list lacks fails to compile here,
// naming it (regenerating the types after a new creating POST shows where to add it).
type Unlisted = Exclude<IdempotentPath, (typeof IDEMPOTENT_POSTS)[number]>;
const everyIdempotentPathListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyIdempotentPathListed;

const idempotent: ReadonlySet<string> = new Set(IDEMPOTENT_POSTS);

/** True for a request to a creating POST, by its method and the document's path template. */
export const takesIdempotencyKey = (method: string, schemaPath: string): boolean =>
  method === 'POST' && idempotent.has(schemaPath);

/**
 * A random UUID (v4). `crypto.randomUUID` exists only in secure contexts in browsers (https, localhost),
 * `crypto.getRandomValues` everywhere.
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
