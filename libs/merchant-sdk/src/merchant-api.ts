import {
  type CreateOptions,
  dataOf,
  doneOf,
  envelopeOf,
  idempotencyHeader,
  type RawClient,
} from './http-transport.js';
import type { ApiKey, AuditEntry, Body, Data, Merchant, Query } from './models.js';
import { type PagedList, pagedList } from './paging.js';

/** The merchant's own integration (merchant key only): its browser origins, its keys, its audit log. */
export interface MerchantApi {
  /** Its name, `frontendOrigins` and API keys (never a key itself). */
  get(): Promise<Merchant>;
  /** Replaces its browser origins (`frontendOrigins`), at once on every api process. */
  update(input: Body<'/v1/merchant', 'patch'>): Promise<Merchant>;
  /** Every API key of the merchant, revoked ones too. */
  keys(): Promise<ApiKey[]>;
  /** Another key, its `key` shown this once; the others keep working until revoked. */
  issueKey(
    input?: Body<'/v1/merchant/api-keys', 'post'>,
    options?: CreateOptions,
  ): Promise<Data<'/v1/merchant/api-keys', 'post'>>;
  /** Revokes a key, the calling one included; never the last working one (a BffError `CONFLICT`). */
  revokeKey(keyId: string): Promise<void>;
  /** What was done to the integration, by its keys or the operator, newest first. */
  audit(query?: Query<'/v1/merchant/audit'>): PagedList<AuditEntry>;
}

export function merchantApi(raw: RawClient): MerchantApi {
  return {
    get: () => dataOf(raw.GET('/v1/merchant')),
    update: (input) => dataOf(raw.PATCH('/v1/merchant', { body: input })),
    keys: () => dataOf(raw.GET('/v1/merchant/api-keys')),
    issueKey: (input = {}, options = {}) =>
      dataOf(
        raw.POST('/v1/merchant/api-keys', {
          params: { header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    revokeKey: (keyId) =>
      doneOf(raw.DELETE('/v1/merchant/api-keys/{keyId}', { params: { path: { keyId } } })),
    audit: (query = {}) =>
      pagedList((q) => envelopeOf(raw.GET('/v1/merchant/audit', { params: { query: q } })), query),
  };
}
