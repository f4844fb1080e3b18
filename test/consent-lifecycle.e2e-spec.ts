import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { ConsentExpiryScanService, ConsentReconciliationService } from '#libs/domain/consents';
import {
  accountsWhenSynced,
  connectBank,
  decideAtBank,
  onboard,
  runWhenEnded,
  SandboxHttp,
  storedTransactions,
  type Tenant,
  upstreamConsentId,
  useStack,
} from './kit/index.js';

const DAY = 86_400_000;

/**
 * The consent lifecycle against the sandbox, time moved by calling the jobs with a later "now" (the one
 * clock they read), never by waiting.
 */
describe('consent lifecycle: expiry warning, re-authorisation, expiry, reconciliation', () => {
  const stack = useStack({ ownDatabase: 'lifecycle', worker: true });
  let tenant: Tenant;
  let prisma: PrismaService;
  let sandbox: SandboxHttp;
  // Two processes' worth of each job: the worker's and the api's instance of the service.
  let scanners: ConsentExpiryScanService[];
  let reconcilers: ConsentReconciliationService[];

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    tenant = await onboard(stack);
    scanners = [stack.worker!.app.get(ConsentExpiryScanService), stack.api.app.get(ConsentExpiryScanService)];
    reconcilers = [
      stack.worker!.app.get(ConsentReconciliationService),
      stack.api.app.get(ConsentReconciliationService),
    ];
  });

  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  const connectExpiringIn = async (ms: number) => {
    // A user of its own each time: a test waits for its user's accounts only.
    tenant = await onboard(stack);
    // Re-authorised before expiry as asked, however short: the scan's renewal is what is tested here.
    const terms = { expiresAt: new Date(Date.now() + ms).toISOString(), autoReauthorise: true };
    return connectBank(apps(), tenant.merchant.apiKey.key, tenant.userId, 'sandbox-redirect', terms);
  };
  const eventsOf = async (consentId: string) =>
    (
      await prisma.merchantEvent.findMany({
        where: { merchantId: tenant.merchant.merchant.id },
        orderBy: { seq: 'asc' },
      })
    )
      .filter(
        // The lifecycle's own events: consent.synced follows the first syncs, whenever the worker ends them.
        (e) =>
          e.type.startsWith('CONSENT_') &&
          e.type !== 'CONSENT_SYNCED' &&
          (e.data as { consentId?: string }).consentId === consentId,
      )
      .map((e) => e.type);

  it('warns once at 7 days, not at 8, and asks the bank to re-authorise once, however many workers scan', async () => {
    const consentId = await connectExpiringIn(8 * DAY);
    const expiresAt = (await prisma.consent.findUniqueOrThrow({ where: { id: consentId } })).expiresAt!;
    const eightDaysBefore = new Date(expiresAt.getTime() - 8 * DAY);
    expect((await scanners[0].scanExpiry(eightDaysBefore)).warned).toBe(0);
    expect(await eventsOf(consentId)).toEqual(['CONSENT_AUTHORIZED']);

    const sevenDaysBefore = new Date(expiresAt.getTime() - 7 * DAY);
    const scans = await Promise.all([
      scanners[0].scanExpiry(sevenDaysBefore),
      scanners[1].scanExpiry(sevenDaysBefore),
      scanners[0].scanExpiry(sevenDaysBefore),
    ]);
    expect(scans.reduce((n, s) => n + s.warned, 0)).toBe(1);
    expect(scans.reduce((n, s) => n + s.reauthorisationsRequested, 0)).toBe(1);
    await scanners[1].scanExpiry(new Date(sevenDaysBefore.getTime() + DAY));
    expect(await eventsOf(consentId)).toEqual([
      'CONSENT_AUTHORIZED',
      'CONSENT_EXPIRING',
      'CONSENT_REAUTHORISATION_REQUIRED',
    ]);
    const consent = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
    expect(consent.status).toBe('AWAITING_RE_AUTHORIZATION');
    expect(consent.reauthorisationUrl).toEqual(expect.stringContaining('/sandbox/bank/consents/'));
    const events = await prisma.merchantEvent.findMany({
      where: { type: 'CONSENT_REAUTHORISATION_REQUIRED' },
    });
    expect(events[0].data).toMatchObject({ consentId, reauthorisationUrl: consent.reauthorisationUrl });
  });

  it('expires a consent at its expiresAt (two minutes out is fine), once: syncing stops, the data stays readable', async () => {
    const consentId = await connectExpiringIn(2 * 60_000);
    const accounts = await accountsWhenSynced(tenant.client, tenant.userId);
    const mine = await prisma.account.findMany({ where: { consentId } });
    const later = new Date(Date.now() + 3 * 60_000);
    await Promise.all([scanners[0].scanExpiry(later), scanners[1].scanExpiry(later)]);
    await scanners[0].scanExpiry(later);
    expect((await prisma.consent.findUniqueOrThrow({ where: { id: consentId } })).status).toBe('EXPIRED');
    expect((await eventsOf(consentId)).filter((t) => t === 'CONSENT_EXPIRED')).toHaveLength(1);
    for (const account of await prisma.account.findMany({ where: { consentId } })) {
      expect([account.syncStatus, account.nextSyncAt]).toEqual(['STOPPED', null]);
    }
    const read = await tenant.client.get(`/v1/accounts/${mine[0].id}/transactions?limit=1`);
    expect(read.status).toBe(200);
    expect(accounts.length).toBeGreaterThan(0);
  });

  it('reconciliation applies a revocation and an expiry the bank made without telling us, once each', async () => {
    const revokedId = await connectExpiringIn(60 * DAY);
    const revokedTenant = tenant;
    const expiredId = await connectExpiringIn(60 * DAY);
    expect(
      (await sandbox.admin('POST', `/consents/${await upstreamConsentId(stack, revokedId)}/revoke`)).status,
    ).toBeLessThan(300);
    expect(
      (await sandbox.admin('POST', `/consents/${await upstreamConsentId(stack, expiredId)}/expire`)).status,
    ).toBeLessThan(300);

    // Counters: rules that only count (a 1 ms delay, no error) the consent listings and single reads.
    const count = async (path: string) =>
      (
        await sandbox.admin<{ data: { id: string } }>('POST', '/faults', {
          method: 'GET',
          path,
          latencyMs: 1,
        })
      ).body.data.id;
    const counters = { listings: await count('/consents'), reads: await count('/consents/*') };
    const hits = async () => {
      const rules = (await sandbox.admin<{ data: { id: string; hits: number }[] }>('GET', '/faults')).body
        .data;
      const of = (id: string) => rules.find((r) => r.id === id)?.hits;
      return { listings: of(counters.listings), reads: of(counters.reads) };
    };

    const due = await prisma.consent.findMany({
      where: { status: { in: ['AUTHORIZED', 'AWAITING_RE_AUTHORIZATION'] }, kind: 'ACCOUNT' },
      select: { merchantId: true },
    });
    // The worker's first sync may meet a refused token and mark it first: once, either way.
    const first = await reconcilers[0].reconcile(new Date());
    expect(first.failed).toBe(0);
    // Every consent due was read from a listing of its users' consents, one listing per merchant (its
    // sub-application) for a batch of users: no single read.
    const calls = await hits();
    expect(calls.reads).toBe(0);
    expect(calls.listings).toBeGreaterThan(0);
    expect(calls.listings).toBeLessThanOrEqual(new Set(due.map((c) => c.merchantId)).size);
    await sandbox.admin('DELETE', `/faults/${counters.listings}`);
    await sandbox.admin('DELETE', `/faults/${counters.reads}`);
    await reconcilers[1].reconcile(new Date(Date.now() + 1_000));
    const revoked = await prisma.consent.findUniqueOrThrow({
      where: { id: revokedId },
      include: { accounts: true },
    });
    expect(revoked.status).toBe('REVOKED');
    expect(revoked.accounts.every((a) => a.syncStatus === 'STOPPED')).toBe(true);
    const expiredTenant = tenant;
    tenant = revokedTenant;
    expect((await eventsOf(revokedId)).filter((t) => t === 'CONSENT_REVOKED')).toHaveLength(1);
    tenant = expiredTenant;
    expect((await prisma.consent.findUniqueOrThrow({ where: { id: expiredId } })).status).toBe('EXPIRED');
    expect((await eventsOf(expiredId)).filter((t) => t === 'CONSENT_EXPIRED')).toHaveLength(1);
  });

  it('shows the operator consent counts by status and merchant', async () => {
    const all = await stack.operator.get('/admin/consents');
    expect(all.status).toBe(200);
    expect(all.body.data.byStatus.REVOKED).toBeGreaterThanOrEqual(1);
    const mine = all.body.data.byMerchant.filter(
      (m: { merchantId: string }) => m.merchantId === tenant.merchant.merchant.id,
    );
    expect(mine.map((m: { status: string }) => m.status)).toEqual(['EXPIRED']);
    const soon = await stack.operator.get(
      `/admin/consents?status=AWAITING_RE_AUTHORIZATION&expiringBefore=${encodeURIComponent(new Date(Date.now() + 200 * DAY).toISOString())}`,
    );
    expect(soon.body.data.byStatus).toEqual({ AWAITING_RE_AUTHORIZATION: 1 });
    const bad = await stack.operator.get('/admin/consents?expiringBefore=tomorrow');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await tenant.client.get('/admin/consents')).status).toBe(403);
  });
  it('completing the re-authorisation extends the expiry and keeps the accounts, the transactions and an incremental next sync', async () => {
    const consentId = await connectExpiringIn(6 * DAY);
    const accounts = await accountsWhenSynced(tenant.client, tenant.userId);
    const current = accounts.find((a) => a.type === 'CURRENT')!;
    const before = await storedTransactions(tenant.client, current.id);
    const expiresBefore = (await prisma.consent.findUniqueOrThrow({ where: { id: consentId } })).expiresAt!;

    await scanners[0].scanExpiry(new Date());
    const pending = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
    expect(pending.status).toBe('AWAITING_RE_AUTHORIZATION');
    // The user comes back two days later (the bank's clock; this file's last test, as it cannot go back).
    expect((await sandbox.admin('POST', '/clock/advance', { days: 2 })).status).toBeLessThan(300);
    const back = await decideAtBank(apps(), pending.reauthorisationUrl);
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');

    const after = await prisma.consent.findUniqueOrThrow({
      where: { id: consentId },
      include: { accounts: true },
    });
    expect(after.status).toBe('AUTHORIZED');
    // A new validity from the day of the re-authorisation: two days more than before.
    expect(after.expiresAt!.getTime()).toBeGreaterThan(expiresBefore.getTime() + 1.9 * DAY);
    expect(after.expiringNotifiedAt).toBeNull();
    const accountIds = (await tenant.client.get(`/v1/users/${tenant.userId}/accounts`)).body.data.map(
      (a: { id: string }) => a.id,
    );
    for (const a of accounts) expect(accountIds).toContain(a.id);

    const sync = await tenant.client.post(`/v1/accounts/${current.id}/sync`);
    const run = await runWhenEnded(tenant.client, sync.body.data.syncId);
    expect(run.status).toBe('succeeded');
    expect(run.window.from).not.toBeNull(); // incremental: from the newest booked record minus the overlap
    // Only the window: the new days' records, not the history again; everything known is kept.
    expect(run.progress.fetched).toBeLessThan(before.length / 10);
    const stored = (await storedTransactions(tenant.client, current.id)).map((t) => t.id);
    expect(stored).toEqual(expect.arrayContaining(before.map((t) => t.id)));
    expect(stored.length - before.length).toBe(run.progress.inserted);
  });
});
