import type { OperatorCaller, TenantCaller } from './caller.js';

declare const brand: unique symbol;

/**
 * A merchant's id as the tenant a query is scoped to. Every repository method that reads or writes a
 * merchant's data takes one first, and a plain string is refused by the compiler: a tenant query cannot be
 * written without saying where its tenant came from. It is still a string at run time (SQL binds it as
 * one), and it widens to `string` wherever a plain id is wanted.
 *
 * Only the three functions below make one, each named for who acts for the merchant, so every place a
 * tenant is decided can be found by name: {@link tenantOf} (a request's caller), {@link tenantOfRecord}
 * (a record of ours naming it: a job, a scanned row, a signed state) and {@link tenantNamedByOperator}
 * (the operator's admin routes).
 */
export type MerchantId = string & { readonly [brand]: 'MerchantId' };

/** The tenant of a request: the merchant authentication established for its caller. */
export function tenantOf(caller: TenantCaller): MerchantId {
  return caller.merchantId as MerchantId;
}

/**
 * The tenant named by a record of our own that the system acts on by itself: a queued job's data (the
 * merchant it was enqueued for), a row a scan across merchants answered, or a state we signed and got back.
 */
export function tenantOfRecord(record: { readonly merchantId: string }): MerchantId {
  return record.merchantId as MerchantId;
}

/**
 * The tenant the operator acts on from an admin route: the merchant it named. The operator caller is asked
 * for so that only code already holding the operator's identity can name any merchant it likes.
 */
export function tenantNamedByOperator(_operator: OperatorCaller, merchantId: string): MerchantId {
  return merchantId as MerchantId;
}
