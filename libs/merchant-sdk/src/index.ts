// @open-banking-bff/merchant-sdk: the merchant API of the open-banking BFF, typed from its OpenAPI
// document. This entry loads in browsers as it is; webhook verification, a backend's concern whose
// standardwebhooks dependency is CommonJS, is `@open-banking-bff/merchant-sdk/webhooks`. docs/sdk.md in the BFF's repository describes every part with an example.
export type { AccountsApi, Completeness, SyncsApi, TransactionsApi } from './accounts-api.js';
export { type BffClient, type BffClientOptions, createBffClient } from './bff-client.js';
export type { ConsentsApi } from './consents-api.js';
export {
  BffError,
  type BffErrorCode,
  type BffErrorInit,
  isBffError,
  type SdkErrorCode,
  type WebhookVerificationCode,
  WebhookVerificationError,
} from './errors.js';
export type { EventStream, EventStreamOptions } from './event-stream.js';
export type { EventEndpointsApi, EventsApi } from './events-api.js';
export type { CreateOptions, RawClient, TokenSource } from './http-transport.js';
export { IDEMPOTENT_POSTS } from './idempotency.js';
export type { InsightsApi } from './insights-api.js';
export type { MerchantApi } from './merchant-api.js';
export type * from './models.js';
export type { Page, PagedList } from './paging.js';
export type { PaymentsApi, VrpApi } from './payments-api.js';
export { REVALIDATE_MAX_ENTRIES } from './revalidation.js';
export type { InstitutionsApi, SessionsApi, UsersApi } from './users-api.js';
