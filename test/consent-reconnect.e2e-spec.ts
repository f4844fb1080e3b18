import { beforeAll, describe, expect, it } from 'vitest';
import { tenantNamedByOperator } from '#libs/context';
import { PrismaService } from '#libs/database';
import { ConsentAuthoriserService, ConsentRepository, ConsentStateRepository } from '#libs/domain/consents';
import { AccountSyncService } from '#libs/domain/sync';
import { SyncRunRepository } from '#libs/domain/sync-runs';
import { UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import {
  accountsWhenSynced,
  connectBank,
  decideAtBank,
  eventually,
  onboard,
  sandboxOf,
  storedTransactions,
  type SyncedAccount,
  type Tenant,
  upstreamConsentId,
  useStack,
} from './kit/index.js';

const REDIRECT = 'https://app.merchant.example/banks/done';

/**
 * Connecting a bank again (issue 24, item 3): after a consent is revoked or expires, a new consent for
 * the same institution carries the user's accounts on, with their ids, transactions and sync history;
 * none appears twice. Against the sandbox, a worker syncing.
 */
describe('reconnecting a bank keeps the user’s accounts', () => {
  const stack = useStack({ ownDatabase: 'reconnect', worker: true });
  let prisma: PrismaService;
  const sandbox = sandboxOf(stack);

  beforeAll(() => {
    prisma = stack.api.app.get(PrismaService);
  });

  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  const connectAgain = (tenant: Tenant, institutionId = 'sandbox-redirect') =>
    connectBank(apps(), tenant.merchant.apiKey.key, tenant.userId, institutionId);
  const accountsOf = async (tenant: Tenant) =>
    (await tenant.client.get<{ data: SyncedAccount[] }>(`/v1/users/${tenant.userId}/accounts?limit=100`)).body
      .data as (SyncedAccount & { consentId: string; accountIdentifications: unknown })[];
  /** Every account synced since `since` (a sync that ended after the reconnection). */
  const syncedSince = (tenant: Tenant, since: number) =>
    eventually('every account synced again', async () => {
      const accounts = await accountsOf(tenant);
      return accounts.every(
        (a) => a.sync.status === 'synced' && a.sync.lastSyncedAt && Date.parse(a.sync.lastSyncedAt) >= since,
      )
        ? accounts
        : undefined;
    });
  it('keeps the account ids, the transactions (none twice) and an incremental sync after a revocation', async () => {
    const tenant = await onboard(stack);
    const first = await connectAgain(tenant);
    const before = await accountsWhenSynced(tenant.client, tenant.userId);
    expect(before).toHaveLength(3);
    const history = new Map<string, string[]>();
    for (const a of before)
      history.set(
        a.id,
        (await storedTransactions(tenant.client, a.id)).map((t) => t.id),
      );

    expect((await tenant.client.delete(`/v1/consents/${first}`)).status).toBeLessThan(300);
    const reconnectedAt = Date.now();
    const second = await connectAgain(tenant);

    const after = await syncedSince(tenant, reconnectedAt);
    expect(after.map((a) => a.id).sort()).toEqual(before.map((a) => a.id).sort());
    expect(after.every((a) => a.consentId === second)).toBe(true);
    for (const a of after) {
      const ids = (await storedTransactions(tenant.client, a.id)).map((t) => t.id);
      expect(new Set(ids).size, `account ${a.id}: no transaction twice`).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(history.get(a.id)!));
    }
    // The sync resumed where it was: incremental windows, not the history again.
    const runs = await prisma.syncRun.findMany({
      where: { accountId: { in: after.map((a) => a.id) }, queuedAt: { gte: new Date(reconnectedAt) } },
    });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const run of runs.filter((r) => r.status === 'SUCCEEDED' && r.fetched > 0)) {
      expect(run.windowFrom, `run ${run.id} is incremental`).not.toBeNull();
    }
    const old = await prisma.consent.findUniqueOrThrow({ where: { id: first }, include: { accounts: true } });
    expect([old.status, old.accounts.length]).toEqual(['REVOKED', 0]);
  }, 180_000);

  it('keeps them after the bank revoked or expired the consent without telling us first', async () => {
    for (const ending of ['revoke', 'expire'] as const) {
      const tenant = await onboard(stack);
      const first = await connectAgain(tenant);
      const before = await accountsWhenSynced(tenant.client, tenant.userId);
      const upstreamId = await upstreamConsentId(stack, first);
      expect((await sandbox.admin('POST', `/consents/${upstreamId}/${ending}`)).status).toBeLessThan(300);
      // A read meets the refused token and marks the consent.
      const refused = await tenant.client.get(`/v1/accounts/${before[0].id}/transactions/live`);
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toMatch(
        /connect the bank again with a new consent: POST \/v1\/users\/[^/]+\/consents/,
      );

      const second = await connectAgain(tenant);
      const after = await accountsOf(tenant);
      expect(after.map((a) => a.id).sort(), ending).toEqual(before.map((a) => a.id).sort());
      expect(after.every((a) => a.consentId === second)).toBe(true);
    }
  }, 180_000);

  it('matches by sort code and account number, or card number, when the bank lists new account ids', async () => {
    await sandbox.withQuirks({ accountIdsPerConsent: true }, async () => {
      const tenant = await onboard(stack);
      const first = await connectAgain(tenant);
      const before = await accountsWhenSynced(tenant.client, tenant.userId);
      expect((await tenant.client.delete(`/v1/consents/${first}`)).status).toBeLessThan(300);
      const reconnectedAt = Date.now();
      const second = await connectAgain(tenant);

      const after = await syncedSince(tenant, reconnectedAt);
      expect(after.map((a) => a.id).sort()).toEqual(before.map((a) => a.id).sort());
      for (const a of after) {
        const was = before.find((b) => b.id === a.id)!;
        expect(a.consentId).toBe(second);
        expect(a.upstreamAccountId, 'the bank’s new id for it').not.toBe(was.upstreamAccountId);
        const ids = (await storedTransactions(tenant.client, a.id)).map((t) => t.id);
        expect(new Set(ids).size).toBe(ids.length);
      }
    });
  }, 180_000);

  it('answers 409 to re-authorising a revoked or expired consent, pointing at a new consent', async () => {
    const tenant = await onboard(stack);
    const revoked = await connectAgain(tenant);
    await accountsWhenSynced(tenant.client, tenant.userId);
    expect((await tenant.client.delete(`/v1/consents/${revoked}`)).status).toBeLessThan(300);
    const other = await onboard(stack);
    const expired = await connectAgain(other);
    const [otherAccount] = await accountsWhenSynced(other.client, other.userId);
    await sandbox.admin('POST', `/consents/${await upstreamConsentId(stack, expired)}/expire`);
    // The first read meets the refused token and marks the consent EXPIRED.
    expect((await other.client.get(`/v1/accounts/${otherAccount.id}/transactions/live`)).status).toBe(409);
    expect((await prisma.consent.findUniqueOrThrow({ where: { id: expired } })).status).toBe('EXPIRED');

    for (const [who, id] of [
      [tenant, revoked],
      [other, expired],
    ] as const) {
      const answer = await who.client.post(`/v1/consents/${id}/reauthorise`, { redirectUrl: REDIRECT });
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('CONSENT_NOT_AUTHORISED');
      expect(answer.body.error.message).toContain(`POST /v1/users/${who.userId}/consents`);
      expect(answer.body.error.details).toEqual(
        expect.arrayContaining([
          { field: 'institutionId', issue: expect.stringContaining('sandbox-redirect') },
        ]),
      );
    }
    // A stopped account says the same when a sync is asked for.
    const [account] = await accountsOf(tenant);
    const sync = await tenant.client.post(`/v1/accounts/${account.id}/sync`);
    expect([sync.status, sync.body.error.code]).toEqual([409, 'CONSENT_NOT_AUTHORISED']);
    expect(sync.body.error.message).toContain(`POST /v1/users/${tenant.userId}/consents`);
    // And a run queued before the revocation, when a worker takes it: the run's error and the account's.
    const merchantId = tenant.merchant.merchant.id;
    const [run] = await stack.api.app
      .get(SyncRunRepository)
      .openRuns([{ merchantId, accountId: account.id }], 'MANUAL');
    await expect(
      stack.api.app
        .get(AccountSyncService)
        .run({ merchantId, accountId: account.id, runId: run.id }, { finalAttempt: true, retryInMs: 0 }),
    ).rejects.toThrow(/not usable/);
    const ended = (await tenant.client.get(`/v1/syncs/${run.id}`)).body.data;
    expect(ended.error).toMatchObject({ code: 'CONSENT_NOT_AUTHORISED' });
    expect(ended.error.message).toContain(
      `POST /v1/users/${tenant.userId}/consents with institutionId sandbox-redirect`,
    );
    const stopped = (await tenant.client.get(`/v1/accounts/${account.id}`)).body.data;
    expect(stopped.sync.lastError).toContain(`POST /v1/users/${tenant.userId}/consents`);
  }, 120_000);

  it('leaves the accounts where they are when the new consent is revoked between the bank’s approval and its storing', async () => {
    const tenant = await onboard(stack);
    const merchantId = tenantNamedByOperator({ kind: 'operator' }, tenant.merchant.merchant.id);
    const first = await connectAgain(tenant);
    const before = await accountsWhenSynced(tenant.client, tenant.userId);
    const created = await tenant.client.post(`/v1/users/${tenant.userId}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: REDIRECT,
    });
    expect(created.status).toBe(201);
    const second = created.body.data as { id: string; authorisationUrl: string };
    // The user approves at the bank; the callback has claimed the consent and exchanged the token...
    const url = new URL(second.authorisationUrl);
    const form = await fetch(`${stack.sandbox.url}${url.pathname}${url.search}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'approve' }).toString(),
    });
    await form.arrayBuffer();
    const oneTimeToken = new URL(form.headers.get('location')!).searchParams.get('oneTimeToken');
    expect(oneTimeToken).toBeTruthy();
    const claimed = (await stack.api.app.get(ConsentRepository).findOne(merchantId, second.id))!;
    const { data: authorised } = await stack.api.app
      .get<UpstreamClient>(UPSTREAM_CLIENT)
      .consents.exchangeOneTimeToken(oneTimeToken!);
    // ...when the merchant revokes it here (the bank still honours its token, so its accounts list).
    expect((await stack.api.app.get(ConsentStateRepository).markRevoked(merchantId, second.id)).applied).toBe(
      true,
    );

    const stored = await stack.api.app
      .get(ConsentAuthoriserService)
      .store(merchantId, claimed, authorised, undefined);
    expect(stored).toMatchObject({ applied: false, found: 'REVOKED' });
    const after = await accountsOf(tenant);
    expect(after.map((a) => a.id).sort()).toEqual(before.map((a) => a.id).sort());
    // The live consent keeps them all: the revoked one took none.
    expect(after.map((a) => a.consentId)).toEqual(after.map(() => first));
    expect(await prisma.account.count({ where: { consentId: second.id } })).toBe(0);
  }, 120_000);

  it('keeps one row per account when consents of the same bank are authorised at once', async () => {
    for (let round = 0; round < 3; round++) {
      const tenant = await onboard(stack);
      const created = await Promise.all(
        [1, 2, 3].map(async () => {
          const answer = await tenant.client.post(`/v1/users/${tenant.userId}/consents`, {
            institutionId: 'sandbox-redirect',
            redirectUrl: REDIRECT,
          });
          expect(answer.status).toBe(201);
          return answer.body.data as { id: string; authorisationUrl: string };
        }),
      );
      const backs = await Promise.all(created.map((c) => decideAtBank(apps(), c.authorisationUrl)));
      expect(backs.map((b) => b.location.searchParams.get('status'))).toEqual([
        'AUTHORIZED',
        'AUTHORIZED',
        'AUTHORIZED',
      ]);
      const accounts = await accountsOf(tenant);
      expect(accounts, `round ${round}`).toHaveLength(3);
      expect(new Set(accounts.map((a) => a.upstreamAccountId)).size).toBe(3);
      // One consent holds them all: the accounts belong to one consent at a time.
      expect(new Set(accounts.map((a) => a.consentId)).size).toBe(1);
    }
  }, 120_000);
});
