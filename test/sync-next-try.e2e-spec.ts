import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertProperty,
  connectedSavingsAccount,
  dataOf,
  syncAttempt,
  syncToEnd,
  uniqueQueuePrefix,
  useBankFaults,
  USER_PRESENT,
  useStack,
  useTenant,
} from './kit/index.js';

/** What the test tells the sync the queue would wait before the next attempt. */
const RETRY_IN_MS = 90_000;

interface RunView {
  id: string;
  status: string;
  nextAttemptAt: string | null;
}
interface AccountView {
  sync: { status: string; nextSyncAt: string | null };
}

/**
 * Issue 81, finding 5: one truth for "when is the next try". While a run waits for its next attempt the
 * account's nextSyncAt is that attempt's time, not the schedule's hours away; a sync asked for shows on
 * the account, its run and its list's meta at once. The test is the only worker: it runs each attempt
 * itself, telling the sync what the queue would do next.
 */
describe('sync: the account, its run and its list agree on the next try', () => {
  const stack = useStack({ overrides: { QUEUE_PREFIX: uniqueQueuePrefix('sync-next-try') } });
  const tenant = useTenant(stack);
  const sandbox = useBankFaults(stack);

  const attempt = (runId: string, accountId: string, finalAttempt: boolean) =>
    syncAttempt(stack, tenant, { accountId, runId }, { finalAttempt, retryInMs: RETRY_IN_MS });

  /** The account, its run and its list's meta, read together. */
  const readAll = async (accountId: string, runId: string) => {
    const [account, run, list] = await Promise.all([
      tenant.client.get(`/v1/accounts/${accountId}`),
      tenant.client.get(`/v1/syncs/${runId}`),
      tenant.client.get(`/v1/accounts/${accountId}/transactions?limit=1`),
    ]);
    return {
      account: dataOf<AccountView>(account).sync,
      run: dataOf<RunView>(run),
      syncStatus: (list.body as { meta: { syncStatus: string } }).meta.syncStatus,
    };
  };
  const requestSync = async (accountId: string) =>
    dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${accountId}/sync`, undefined, { headers: USER_PRESENT }),
      202,
    ).syncId;

  /** What must hold after every step: the account's next try is its active run's. */
  const agree = (seen: Awaited<ReturnType<typeof readAll>>) => {
    if (seen.run.status === 'queued' || seen.run.nextAttemptAt !== null) {
      expect(seen.account.status).toBe('syncing');
      expect(seen.syncStatus).toBe('syncing');
      expect(seen.account.nextSyncAt).toBe(seen.run.nextAttemptAt);
    }
  };

  it('after POST …/sync, and while a failing bank’s run waits to retry', async () => {
    const account = await connectedSavingsAccount(stack, tenant);
    expect(await syncToEnd(stack, tenant, account.id)).toBe('succeeded');

    const runId = await requestSync(account.id);
    const asked = await readAll(account.id, runId);
    expect(asked.run.status).toBe('queued');
    expect(asked.run.nextAttemptAt).not.toBeNull();
    agree(asked);

    const path = `/accounts/${account.upstreamId}/transactions`;
    await sandbox.admin('POST', '/faults', { method: 'GET', path, status: 500 });
    expect(await attempt(runId, account.id, false)).toBe('threw');
    const retrying = await readAll(account.id, runId);
    expect(retrying.run.status).toBe('running');
    // Within the queue's wait, not the schedule's four hours.
    expect(Date.parse(retrying.account.nextSyncAt!) - Date.now()).toBeLessThan(RETRY_IN_MS + 5_000);
    agree(retrying);
    await sandbox.admin('DELETE', '/faults');
  });

  it('whatever the sequence of requests, failed attempts, failed runs and successes', async () => {
    const account = await connectedSavingsAccount(stack, tenant);
    expect(await syncToEnd(stack, tenant, account.id)).toBe('succeeded');
    const path = `/accounts/${account.upstreamId}/transactions`;
    type Step = 'request' | 'attempt-fails' | 'run-fails' | 'succeeds';
    await assertProperty(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Step>('request', 'attempt-fails', 'run-fails', 'succeeds'), {
          minLength: 1,
          maxLength: 6,
        }),
        async (steps) => {
          let runId = await requestSync(account.id);
          for (const step of steps) {
            if (step === 'request') runId = await requestSync(account.id);
            else {
              runId = await requestSync(account.id);
              if (step !== 'succeeds') {
                await sandbox.admin('POST', '/faults', { method: 'GET', path, status: 500 });
              }
              await attempt(runId, account.id, step !== 'attempt-fails');
              await sandbox.admin('DELETE', '/faults');
            }
            agree(await readAll(account.id, runId));
          }
          // Leave the account with no active run for the next case.
          await attempt(await requestSync(account.id), account.id, true);
        },
      ),
      6,
    );
  });
});
