import { describe, expect, it } from 'vitest';
import { jobRequestId } from '#libs/context';
import { DatabasePool } from '#libs/database';
import { ConsentExpiryScanService } from '#libs/domain/consents';
import { UserRepository } from '#libs/domain/users';
import { createBffClient } from '../libs/merchant-sdk/src/index.js';
import {
  activeSyncRun,
  captureLogger,
  connectBank,
  connectedSavingsAccount,
  createUser,
  dataOf,
  syncAttempt,
  tuned,
  uniqueQueuePrefix,
  useBankFaults,
  useStack,
  useTenant,
} from './kit/index.js';

/** Small pages: the savings account's records span many, so a fault lands mid-window. */
const PAGE_SIZE = 25;
/** What the test tells the sync the queue would wait before the next attempt. */
const RETRY_IN_MS = 2_000;

interface RunView {
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  error: { code: string; message: string | null; upstream: { tracingId: string | null } | null } | null;
}
interface AccountView {
  sync: {
    status: string;
    lastError: string | null;
    failingSince: string | null;
    nextSyncAt: string | null;
  };
}
interface ListMeta {
  complete: boolean;
  syncStatus: string;
  syncError: string | null;
}

/**
 * Issue 56, findings 2 and 3: what a merchant reads of a sync while the bank fails is true. A run between
 * attempts says why its last one failed and when the next starts; the account says so too; a first sync
 * that failed leaves a list that says it is partial (and the SDK says why, never waiting on nothing); a
 * failed account is tried again within minutes; the upstream's tracing id survives an attempt that got
 * none; a stopped account names its consent's state, not an old error. The test is the only worker: it
 * runs each attempt itself, telling the sync what the queue would do next.
 */
describe('sync: what a failing sync says is true', () => {
  const logs = captureLogger('worker');
  const stack = useStack({
    loggers: { api: logs.logger },
    overrides: {
      QUEUE_PREFIX: uniqueQueuePrefix('sync-truth'),
      ...tuned({ syncPageSize: PAGE_SIZE }),
    },
  });
  const tenant = useTenant(stack);
  const sandbox = useBankFaults(stack);

  const db = () => stack.api.app.get(DatabasePool);
  const sdk = () => createBffClient({ baseUrl: stack.api.url, token: tenant.merchant.apiKey.key });

  const savingsAccount = () => connectedSavingsAccount(stack, tenant);
  const activeRun = (accountId: string) => activeSyncRun(stack, tenant, accountId);

  /** One attempt of the run, told the queue would wait RETRY_IN_MS before the next. */
  const attempt = (runId: string, accountId: string, finalAttempt: boolean) =>
    syncAttempt(stack, tenant, { accountId, runId }, { finalAttempt, retryInMs: RETRY_IN_MS });
  /** The JSON log lines with this message about this run (or, for the client's, in its job). */
  const linesOf = (msg: string, runId: string) =>
    logs.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(
        (line) =>
          line.msg === msg && (line.runId === runId || line.reqId === jobRequestId('sync.account', runId)),
      );

  const runOf = async (runId: string) => dataOf<RunView>(await tenant.client.get(`/v1/syncs/${runId}`));
  const accountOf = async (id: string) => dataOf<AccountView>(await tenant.client.get(`/v1/accounts/${id}`));
  const listMeta = async (id: string) =>
    (
      (await tenant.client.get(`/v1/accounts/${id}/transactions?limit=1`)).body as {
        meta: ListMeta;
      }
    ).meta;
  /** The run's sync.failed as recorded (with the run's end, in one transaction). */
  const failedEvents = (runId: string) =>
    db().rows<{ data: { error: { upstreamTracingId: string | null } } }>({
      text: `SELECT data FROM merchant_events WHERE type = 'sync.failed' AND data->>'syncId' = $1`,
      values: [runId],
    });

  it('says why while a first sync fails, leaves a list that says it is partial, and tries again in minutes', async () => {
    const account = await savingsAccount();
    const path = `/accounts/${account.upstreamId}/transactions`;
    // Pages 1 to 4 land; every later page fails.
    await sandbox.admin('POST', '/faults', { method: 'GET', path, status: 500, after: 4 });
    const runId = await activeRun(account.id);

    const before = Date.now();
    expect(await attempt(runId, account.id, false)).toBe('threw');
    const retrying = await runOf(runId);
    expect(retrying).toMatchObject({ status: 'running', attempts: 1, error: { code: 'SYNC_FAILED' } });
    expect(retrying.error?.upstream?.tracingId).toEqual(expect.any(String));
    expect(Date.parse(retrying.nextAttemptAt!)).toBeGreaterThanOrEqual(before + RETRY_IN_MS);
    const meanwhile = await accountOf(account.id);
    expect(meanwhile.sync).toMatchObject({ status: 'syncing', lastError: retrying.error?.message });
    expect(meanwhile.sync.failingSince).not.toBeNull();
    expect(await listMeta(account.id)).toMatchObject({
      complete: false,
      syncStatus: 'syncing',
      syncError: retrying.error?.message,
    });

    expect(await attempt(runId, account.id, true)).toBe('threw');
    const failed = await runOf(runId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
    const stored = await db().rows<{ n: number }>({
      text: 'SELECT count(*)::int AS n FROM transactions WHERE account_id = $1',
      values: [account.id],
    });
    expect(stored[0].n).toBe(4 * PAGE_SIZE);
    // Partial, and it says so: whole only once a sync succeeds.
    const after = await accountOf(account.id);
    expect(after.sync.status).toBe('failed');
    const failingFor = Date.now() - Date.parse(after.sync.failingSince!);
    const retryIn = Date.parse(after.sync.nextSyncAt!) - Date.now();
    // As long again as it has been failing, at least 5 minutes, give or take a tenth: not the 4 hours.
    expect(retryIn).toBeGreaterThan(0.9 * Math.max(300_000, failingFor) - 5_000);
    expect(retryIn).toBeLessThan(1.1 * Math.max(300_000, failingFor) + 5_000);
    expect(await listMeta(account.id)).toMatchObject({
      complete: false,
      syncStatus: 'failed',
      syncError: failed.error?.message,
    });
    // The SDK tells the truth at once rather than waiting on a sync that is not running.
    expect(await sdk().transactions.whenComplete(account.id, { intervalMs: 50 })).toEqual({
      complete: false,
      syncStatus: 'failed',
      syncError: failed.error?.message,
    });
    const [event] = await failedEvents(runId);
    expect(event.data.error.upstreamTracingId).toBe(failed.error?.upstream?.tracingId);
    expect(event.data.error.upstreamTracingId).toEqual(expect.any(String));
    // An operator's lines name whose sync, which bank, why, and what to quote upstream.
    const named = {
      merchantId: tenant.merchant.merchant.id,
      institutionId: 'sandbox-redirect',
      reason: failed.error?.message,
    };
    expect(linesOf('sync attempt failed; the queue tries again', runId)).toEqual([
      expect.objectContaining({ ...named, attempt: 1, upstreamTracingId: expect.any(String) }),
    ]);
    expect(linesOf('sync failed', runId)).toEqual([
      expect.objectContaining({ ...named, upstreamTracingId: failed.error?.upstream?.tracingId }),
    ]);
    const retries = linesOf('upstream call failed; retrying', runId);
    expect(retries.length).toBeGreaterThan(0);
    for (const line of retries) {
      expect(line).toMatchObject({ merchantId: named.merchantId, institutionId: named.institutionId });
    }

    // The bank mends: the next sync makes the list whole, and the account forgets its failure.
    await sandbox.admin('DELETE', '/faults');
    expect(await attempt(await activeRun(account.id), account.id, true)).toBe('succeeded');
    expect((await accountOf(account.id)).sync).toMatchObject({
      status: 'synced',
      lastError: null,
      failingSince: null,
    });
    expect((await listMeta(account.id)).complete).toBe(true);
    expect(await sdk().transactions.whenComplete(account.id)).toEqual({ complete: true });
  });

  it('names the consent’s state on an account it stopped, not the failure before', async () => {
    const account = await savingsAccount();
    const path = `/accounts/${account.upstreamId}/transactions`;
    await sandbox.admin('POST', '/faults', { method: 'GET', path, status: 500 });
    expect(await attempt(await activeRun(account.id), account.id, true)).toBe('threw');
    await sandbox.admin('DELETE', '/faults');
    expect((await accountOf(account.id)).sync.lastError).toMatch(/500/);

    expect((await tenant.client.delete(`/v1/consents/${account.consentId}`)).status).toBe(204);
    const stopped = await accountOf(account.id);
    expect(stopped.sync).toMatchObject({ status: 'stopped', nextSyncAt: null });
    expect(stopped.sync.lastError).toMatch(/^The consent is REVOKED: syncs stopped; connect the bank again/);
    expect(await sdk().transactions.whenComplete(account.id)).toEqual({
      complete: false,
      syncStatus: 'stopped',
      syncError: stopped.sync.lastError,
    });
  });

  it('points a sync and a read of a consent waiting for re-authorisation at its reauthorisationUrl', async () => {
    const userId = (await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id)).id;
    // Short, and renewed on the merchant's request: the scan asks the bank, which suspends access.
    const consentId = await connectBank(
      { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
      tenant.merchant.apiKey.key,
      userId,
      'sandbox-redirect',
      { expiresAt: new Date(Date.now() + 6 * 86_400_000).toISOString(), autoReauthorise: true },
    );
    const [account] = await db().rows<{ id: string }>({
      text: `SELECT id FROM accounts WHERE consent_id = $1 ORDER BY id LIMIT 1`,
      values: [consentId],
    });
    await stack.api.app.get(ConsentExpiryScanService).scanExpiry(new Date());
    const consent = dataOf<{ status: string; reauthorisationUrl: string }>(
      await tenant.client.get(`/v1/consents/${consentId}`),
    );
    expect(consent.status).toBe('AWAITING_RE_AUTHORIZATION');
    const advice = `send them to the consent's reauthorisationUrl (GET /v1/consents/${consentId})`;

    const runId = await activeRun(account.id);
    expect(await attempt(runId, account.id, false)).toBe('threw');
    const run = await runOf(runId);
    expect(run.error?.code).toBe('CONSENT_NOT_AUTHORISED');
    expect(run.error?.message).toContain(advice);
    expect(run.error?.message).not.toContain('new consent');
    const read = await tenant.client.get(`/v1/accounts/${account.id}/beneficiaries`);
    expect(read.status).toBe(409);
    expect(read.body.error.message).toContain(advice);
  });

  // Last: it leaves the sandbox institution's breaker open in this api for its half-open wait.
  it('keeps the upstream’s tracing id when the last attempt met an open breaker and got none', async () => {
    const account = await savingsAccount();
    // Every read of an account fails (the account list and balances too, which would otherwise close the
    // count): five failures in a row open a breaker within the first attempt.
    await sandbox.admin('POST', '/faults', { method: 'GET', path: '/^\\/accounts/', status: 500 });
    const runId = await activeRun(account.id);
    expect(await attempt(runId, account.id, false)).toBe('threw');
    const real = (await runOf(runId)).error?.upstream?.tracingId;
    expect(real).toEqual(expect.any(String));
    expect(await attempt(runId, account.id, true)).toBe('threw');
    const failed = await runOf(runId);
    expect(failed.error?.message).toMatch(/circuit breaker .* is open/);
    expect(failed.error?.upstream?.tracingId).toBe(real);
    const [event] = await failedEvents(runId);
    expect(event.data.error.upstreamTracingId).toBe(real);
  });
});
