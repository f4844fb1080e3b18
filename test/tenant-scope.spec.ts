import { describe, expect, it } from 'vitest';
import {
  type MerchantCaller,
  type MerchantId,
  type SessionCaller,
  tenantNamedByOperator,
  tenantOf,
  tenantOfRecord,
} from '#libs/context';
import type { AccountRepository, AccountSyncStateRepository } from '#libs/domain/accounts';
import type { ConsentRepository, ConsentStateRepository } from '#libs/domain/consents';
import type { EventEndpointRepository, MerchantEventRepository } from '#libs/domain/events';
import type { PaymentRepository } from '#libs/domain/payments';
import type { TransactionRepository } from '#libs/domain/sync';
import type { SyncRunRepository } from '#libs/domain/sync-runs';
import type { UserRepository } from '#libs/domain/users';

const MERCHANT = '0190c0de-0000-7000-8000-000000000001';

/**
 * Never run: `npm run typecheck` compiles it, and each `@ts-expect-error` fails the build the day its line
 * compiles, that is, the day a tenant query takes a plain string for its tenant again.
 */
export function tenantQueriesRefusePlainStrings(repositories: {
  accounts: AccountRepository;
  syncState: AccountSyncStateRepository;
  consents: ConsentRepository;
  consentState: ConsentStateRepository;
  endpoints: EventEndpointRepository;
  events: MerchantEventRepository;
  payments: PaymentRepository;
  transactions: TransactionRepository;
  runs: SyncRunRepository;
  users: UserRepository;
}) {
  const { accounts, syncState, consents, consentState, endpoints, events, payments, transactions } =
    repositories;
  const plain: string = MERCHANT;
  // @ts-expect-error: a plain string is not a tenant
  void accounts.findOne(plain, 'account');
  // @ts-expect-error: nor is the merchant id a row carries, unless a named constructor vouches for it
  void syncState.syncTarget({ merchantId: plain }.merchantId, 'account');
  // @ts-expect-error: the tenant comes first, before the transaction client
  void syncState.markSyncFailed(undefined as never, plain, 'account', undefined as never);
  // @ts-expect-error: a plain string is not a tenant
  void consents.findOne(plain, 'consent');
  // @ts-expect-error: a plain string is not a tenant
  void consentState.markRevoked(plain, 'consent');
  // @ts-expect-error: a plain string is not a tenant
  void endpoints.list(plain);
  // @ts-expect-error: a plain string is not a tenant
  void events.latestStreamSeq(plain, 'user');
  // @ts-expect-error: a plain string is not a tenant
  void payments.findForCaller(plain, 'payment');
  // @ts-expect-error: a plain string is not a tenant
  void transactions.countFor(plain, 'account');
  // @ts-expect-error: a plain string is not a tenant
  void repositories.runs.findForCaller(plain, 'run');
  // @ts-expect-error: a plain string is not a tenant
  void repositories.users.findById(plain, 'user');

  // What compiles: a tenant from one of the named constructors.
  const merchant: MerchantCaller = { kind: 'merchant', merchantId: plain, apiKeyId: 'key' };
  void accounts.findOne(tenantOf(merchant), 'account');
  void transactions.countFor(tenantOfRecord({ merchantId: plain }), 'account');
  void repositories.users.findById(tenantNamedByOperator({ kind: 'operator' }, plain), 'user');
}

describe('the tenant of a tenant query', () => {
  it('is the merchant each named constructor was given, as the same string at run time', () => {
    const session: SessionCaller = { kind: 'user-session', merchantId: MERCHANT, userId: 'user' };
    const tenants: MerchantId[] = [
      tenantOf(session),
      tenantOfRecord({ merchantId: MERCHANT }),
      tenantNamedByOperator({ kind: 'operator' }, MERCHANT),
    ];
    expect(tenants).toEqual([MERCHANT, MERCHANT, MERCHANT]);
    expect(tenantQueriesRefusePlainStrings).toBeTypeOf('function');
  });
});
