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
  runWhenEnded,
  SandboxHttp,
  type Stack,
  tuned,
  uniqueName,
  upstreamConsentId,
  USER_PRESENT,
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
      ...tuned({ workerMetricsRefreshSeconds: 1, syncDispatchEverySeconds: 1 }),
    },
  }));

  it('holds an account the bank refused until its next day, and lets the user present read', async () => {
    await awayFromMidnight();
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const quirk = await sandbox.admin('PUT', '/institutions/sandbox-redirect/quirks', {
      unattendedReadsPerDay: 1,
    });
    expect(quirk.status).toBe(200);
    const tenant = await onboard(stack);
    const consentId = await connect(stack, tenant);
    // The first sync read the bank for the user, back from it in their browser; a live read without
    // them is the day's one read.
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    expect(account.sync.dailyLimitUntil).toBeNull();
    expect(account.sync.unattendedReads.used).toBe(0);
    const live = `/v1/accounts/${account.id}/transactions/live`;
    expect((await tenant.client.get(live)).status).toBe(200);
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

    // Held, the allowance shows none left until the bank's hold ends; a live read without the user is
    // refused without asking the bank. With the user's address: it answers.
    expect(held.sync.unattendedReads).toMatchObject({ used: 1, remaining: 0 });
    expect(held.sync.unattendedReads.resetsAt).toBe(held.sync.dailyLimitUntil);
    const unattended = await tenant.client.get(live);
    expect(unattended.status).toBe(429);
    expect(unattended.body.error.code).toBe('DAILY_LIMIT_REACHED');
    expect(unattended.body.error.upstream).toBeUndefined();
    const present = await tenant.client.get(live, { headers: { 'psu-ip-address': '203.0.113.9' } });
    expect(present.status).toBe(200);

    // The bank counted the one read it allowed, as we did (its refusal gave ours back).
    expect(await bankCount(sandbox, stack, consentId, account.upstreamAccountId)).toEqual({
      count: 1,
      limit: 1,
    });
    const after = dataOf<typeof account>(await tenant.client.get(`/v1/accounts/${account.id}`));
    expect(after.sync.unattendedReads.used).toBe(1);

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

  it("spends no more than the bank's four a day, counts as the bank does, and refuses the fifth", async () => {
    await awayFromMidnight();
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    await sandbox.admin('PUT', '/institutions/sandbox-redirect/quirks', { unattendedReadsPerDay: 4 });
    const tenant = await onboard(stack);
    const consentId = await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    const syncOf = async () =>
      dataOf<typeof account>(await tenant.client.get(`/v1/accounts/${account.id}`)).sync;
    const atBank = () => bankCount(sandbox, stack, consentId, account.upstreamAccountId);
    const dayStart = Date.parse(new Date().toISOString().slice(0, 10));
    const midnight = new Date(dayStart + DAY_MS).toISOString();

    // The first sync read the bank for the user (back from it in their browser): none of the four.
    const first = await syncOf();
    expect(first.unattendedReads).toEqual({ perDay: 4, used: 0, remaining: 4, resetsAt: midnight });

    // A live read the bank fails, every try of it: the bank did not count it, and neither do we.
    const live = `/v1/accounts/${account.id}/transactions/live`;
    await sandbox.admin('POST', '/faults', {
      method: 'GET',
      path: '/accounts/*/real-time/transactions',
      status: 500,
      source: 'INSTITUTION',
    });
    expect((await tenant.client.get(live)).status).toBeGreaterThanOrEqual(500);
    await sandbox.admin('DELETE', '/faults');
    expect((await syncOf()).unattendedReads.used).toBe(0);
    expect(await atBank()).toEqual({ count: 0, limit: 4 });

    // Three manual syncs and a live read without the user: the day's four, on both sides. Each sync
    // plans the next scheduled one no sooner than k quarters into the day (the four spread over it).
    for (let sync = 1; sync <= 3; sync += 1) {
      const { syncId } = dataOf<{ syncId: string }>(
        await tenant.client.post(`/v1/accounts/${account.id}/sync`),
        202,
      );
      expect((await runWhenEnded(tenant.client, syncId)).status).toBe('succeeded');
      expect(Date.parse((await syncOf()).nextSyncAt!)).toBeGreaterThanOrEqual(dayStart + (sync * DAY_MS) / 4);
    }
    expect((await tenant.client.get(live)).status).toBe(200);
    const spent = await syncOf();
    expect(spent.unattendedReads).toEqual({ perDay: 4, used: 4, remaining: 0, resetsAt: midnight });
    expect(await atBank()).toEqual({ count: 4, limit: 4 });
    // Spent, the next scheduled sync is the next day's.
    expect(Date.parse(spent.nextSyncAt!)).toBeGreaterThanOrEqual(Date.parse(midnight));

    // The fifth: refused with its reset, the bank not asked. The user present still reads.
    const fifth = await tenant.client.post(`/v1/accounts/${account.id}/sync`);
    expect(fifth.status).toBe(429);
    expect(fifth.body.error.code).toBe('DAILY_LIMIT_REACHED');
    const retryAfterMs = Number(fifth.headers.get('retry-after')) * 1000;
    expect(Math.abs(retryAfterMs - (Date.parse(midnight) - Date.now()))).toBeLessThan(5_000);
    expect((await tenant.client.get(live)).status).toBe(429);
    const present = await tenant.client.get(live, { headers: USER_PRESENT });
    expect(present.status).toBe(200);
    // A sync the user asks for reads on their behalf: the bank counts it no more than we do.
    const attended = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${account.id}/sync`, undefined, { headers: USER_PRESENT }),
      202,
    );
    expect((await runWhenEnded(tenant.client, attended.syncId)).status).toBe('succeeded');
    expect(await atBank()).toEqual({ count: 4, limit: 4 });
    expect((await syncOf()).unattendedReads.used).toBe(4);

    // Due at once all the same (as after a restart of the schedule): the worker's run asks the bank
    // nothing and waits for the next day.
    await stack.api.app.get(DatabasePool).rows({
      text: 'UPDATE accounts SET next_sync_at = now() WHERE id = $1',
      values: [account.id],
    });
    await eventually('the due run waiting for the next day', async () =>
      Date.parse((await syncOf()).nextSyncAt!) >= Date.parse(midnight) ? true : undefined,
    );
    expect(await atBank()).toEqual({ count: 4, limit: 4 });
    expect((await syncOf()).dailyLimitUntil).toBeNull();
  });

  it('reads the bank for the user who finishes the embedded flow, and without them otherwise', async () => {
    await awayFromMidnight();
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const tenant = await onboard(stack);
    /** A new customer connects the embedded bank: credentials, SCA method, code; `headers` on each step. */
    const connectEmbedded = async (headers: Record<string, string>) => {
      const user = dataOf<{ id: string }>(
        await tenant.client.post('/v1/users', { reference: uniqueName('embedded') }),
        201,
      );
      const body = { institutionId: 'sandbox-embedded', credentials: { id: 'psu-1', password: 'secret' } };
      const started = dataOf<{ id: string }>(
        await tenant.client.post(`/v1/users/${user.id}/consents/embedded`, body, { headers }),
        201,
      );
      const step = (path: string, answer: object) =>
        tenant.client.post(`/v1/consents/${started.id}/${path}`, answer, { headers });
      dataOf(await step('sca-method', { scaMethodId: 'sbx-push-otp' }), 200);
      dataOf(await step('sca-code', { code: '123456' }), 202);
      const [account] = await accountsWhenSynced(tenant.client, user.id);
      return {
        used: account.sync.unattendedReads.used,
        atBank: await bankCount(sandbox, stack, started.id, account.upstreamAccountId),
      };
    };
    // The user's address on the steps (a backend's psu-ip-address; a user session's own): their first syncs.
    expect(await connectEmbedded(USER_PRESENT)).toEqual({ used: 0, atBank: { count: 0, limit: 4 } });
    expect(await connectEmbedded({})).toEqual({ used: 1, atBank: { count: 1, limit: 4 } });
  });

  it("takes the operator's word on a bank's allowance, at once, and refuses what it cannot keep", async () => {
    await awayFromMidnight();
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    await sandbox.admin('PUT', '/institutions/sandbox-redirect/quirks', { unattendedReadsPerDay: null });
    const tenant = await onboard(stack);
    await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    const allowance = async () =>
      dataOf<typeof account>(await tenant.client.get(`/v1/accounts/${account.id}`)).sync.unattendedReads;
    const path = '/admin/institutions/sandbox-redirect/unattended-reads';
    try {
      // This bank allows one a day: a live read without the user takes it, and nothing is left.
      const set = await stack.operator.call('PUT', path, { body: { perDay: 1 } });
      expect(set.status).toBe(200);
      expect(set.body.data).toEqual({ institutionId: 'sandbox-redirect', perDay: 1, setByOperator: true });
      expect(await allowance()).toMatchObject({ perDay: 1, used: 0, remaining: 1 });
      expect((await tenant.client.get(`/v1/accounts/${account.id}/transactions/live`)).status).toBe(200);
      expect(await allowance()).toMatchObject({ perDay: 1, used: 1, remaining: 0 });
      expect((await tenant.client.post(`/v1/accounts/${account.id}/sync`)).status).toBe(429);

      for (const [body, field] of [
        [{ perDay: 0 }, 'perDay'],
        [{ perDay: 2.5 }, 'perDay'],
        [{ perDay: '3' }, 'perDay'],
        [{}, 'perDay'],
      ] as const) {
        const refused = await stack.operator.call('PUT', path, { body });
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
        expect(JSON.stringify(refused.body.error)).toContain(field);
      }
      const unknown = await stack.operator.call('PUT', '/admin/institutions/no-such-bank/unattended-reads', {
        body: { perDay: 2 },
      });
      expect(unknown.status).toBe(404);
      expect((await tenant.client.call('PUT', path, { body: { perDay: 9 } })).status).toBe(403);
    } finally {
      // Null brings PSD2's four back, for the tests after this one.
      const reset = await stack.operator.call('PUT', path, { body: { perDay: null } });
      expect(reset.body.data).toMatchObject({ perDay: 4, setByOperator: false });
    }
    expect(await allowance()).toMatchObject({ perDay: 4, used: 1, remaining: 3 });
  });
});

const DAY_MS = 86_400_000;

/** The sandbox bank's own count of today's reads of the account without the user, and its allowance. */
async function bankCount(sandbox: SandboxHttp, stack: Stack, consentId: string, upstreamAccountId: string) {
  const upstreamConsent = await upstreamConsentId(stack, consentId);
  const accounts = (await sandbox.admin('GET', `/consents/${upstreamConsent}/accounts`)).body.data;
  const { count, limit } = accounts.find((a: { id: string }) => a.id === upstreamAccountId).unattendedReads;
  return { count, limit };
}

/**
 * Both sides count by the UTC day: a test that began a minute before midnight would see the day turn
 * between two of its steps. It begins after the turn instead (a wait of at most two minutes, once a day).
 */
async function awayFromMidnight(): Promise<void> {
  const left = DAY_MS - (Date.now() % DAY_MS);
  if (left > 120_000) return;
  await eventually(
    'the UTC day turned',
    () => (DAY_MS - (Date.now() % DAY_MS) > 120_000 ? true : undefined),
    180_000,
    1_000,
  );
}
