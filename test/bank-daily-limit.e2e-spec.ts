import { describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { WorkerMetricsServer } from '../apps/worker/src/metrics/worker-metrics.server.js';
import {
  accountsWhenSynced,
  connect,
  dataOf,
  eventually,
  freePort,
  onboard,
  SandboxHttp,
  tuned,
  useStack,
} from './kit/index.js';
import { scrape, valueOf } from './kit/metrics-kit.js';

/*
 * A bank allows so many reads of an account a day without the user present (PSD2: four at most banks) and
 * answers 429 past them. That 429 is the account's own limit, not the bank failing: the account says until
 * when, its sync waits for the bank's next day, a manual sync meanwhile is refused with its own code and
 * when it resets, and a read with the user present still goes through.
 */
describe("the bank's daily allowance of reads without the user", () => {
  // The worker serves its metrics, its gauges read every second (tuning.workerMetricsRefreshSeconds).
  const stack = useStack(async () => ({
    worker: true,
    ownDatabase: 'bank_daily_limit',
    overrides: {
      WORKER_METRICS_PORT: String(await freePort()),
      ...tuned({ workerMetricsRefreshSeconds: 1 }),
    },
  }));

  it('holds an account the bank refused until its next day, and lets the user present read', async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const quirk = await sandbox.admin('PUT', '/institutions/sandbox-redirect/quirks', {
      unattendedReadsPerDay: 1,
    });
    expect(quirk.status).toBe(200);
    const tenant = await onboard(stack);
    const consentId = await connect(stack, tenant);
    // The first sync is the day's one read.
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    expect(account.sync.dailyLimitUntil).toBeNull();
    const midnight = Date.parse(new Date().toISOString().slice(0, 10)) + 86_400_000;

    dataOf(await tenant.client.post(`/v1/accounts/${account.id}/sync`), 202);
    const held = await eventually('the account held for the bank’s allowance', async () => {
      const shown = dataOf<typeof account>(await tenant.client.get(`/v1/accounts/${account.id}`));
      return shown.sync.dailyLimitUntil ? shown : undefined;
    });
    // The bank's Retry-After, to its midnight (UTC), give or take the seconds the test took.
    expect(Math.abs(Date.parse(held.sync.dailyLimitUntil!) - midnight)).toBeLessThan(60_000);
    expect(held.sync.nextSyncAt).toBe(held.sync.dailyLimitUntil);
    expect(held.sync.lastError).toBe('Daily request limit set by the Institution has been exceeded');

    const refused = await tenant.client.post(`/v1/accounts/${account.id}/sync`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('DAILY_LIMIT_REACHED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(refused.body.error.retryAfterSeconds).toBe(retryAfter);
    expect(Math.abs(retryAfter * 1000 - (Date.parse(held.sync.dailyLimitUntil!) - Date.now()))).toBeLessThan(
      5_000,
    );

    // Live, without the user: the bank refuses, and says so. With the user's address: it answers.
    const live = `/v1/accounts/${account.id}/transactions/live`;
    const unattended = await tenant.client.get(live);
    expect(unattended.status).toBe(429);
    expect(unattended.body.error.code).toBe('DAILY_LIMIT_REACHED');
    expect(unattended.body.error.upstream).toMatchObject({ status: 429, source: 'INSTITUTION' });
    const present = await tenant.client.get(live, { headers: { 'psu-ip-address': '203.0.113.9' } });
    expect(present.status).toBe(200);

    // The bank counted the one read it allowed, as we made it.
    const [local] = await stack.api.app.get(DatabasePool).rows<{ upstreamConsentId: string }>({
      text: 'SELECT upstream_consent_id AS "upstreamConsentId" FROM consents WHERE id = $1',
      values: [consentId],
    });
    const accounts = (await sandbox.admin('GET', `/consents/${local.upstreamConsentId}/accounts`)).body.data;
    const atBank = accounts.find((a: { id: string }) => a.id === account.upstreamAccountId);
    expect(atBank.unattendedReads).toMatchObject({ count: 1, limit: 1 });

    // Operators see the bank holding the account, beside its accounts that sync.
    const metrics = `${stack.worker!.app.get(WorkerMetricsServer).url}/metrics`;
    const labels = { institution: 'sandbox-redirect' };
    const shown = await eventually('the held account in the worker’s gauge', async () => {
      const scraped = await scrape(metrics);
      return valueOf(scraped, 'bff_sync_daily_limit_accounts', { ...labels, state: 'held' }) === 1
        ? scraped
        : undefined;
    });
    expect(
      valueOf(shown, 'bff_sync_daily_limit_accounts', { ...labels, state: 'syncing' }),
    ).toBeGreaterThanOrEqual(1);
  });
});
