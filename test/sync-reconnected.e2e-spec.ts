import { describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { AccountSyncService } from '#libs/domain/sync';
import { uuidV7 } from '#libs/ids';
import {
  accountsWhenSynced,
  type ApiClient,
  connect,
  dataOf,
  decideAtBank,
  eventually,
  onboard,
  type Tenant,
  useStack,
} from './kit/index.js';

const REDIRECT = 'https://app.merchant.example/banks/done';

type Run = {
  id: string;
  status: string;
  trigger: string;
  window: { from: string | null; before: string | null };
  progress: { fetched: number; inserted: number };
  queuedAt: string;
};
type SyncEvent = { type: string; data: { syncId: string; trigger: string } };
type SyncedEvent = { data: { consentId: string; accounts: { accountId: string; syncId: string }[] } };

/** The account's runs, newest first. */
const runsOf = async (client: ApiClient, accountId: string) =>
  dataOf<Run[]>(await client.get(`/v1/accounts/${accountId}/syncs?limit=100`));

/** The account's first run queued at or after `since`, once it has ended. */
const runEndedSince = (client: ApiClient, accountId: string, since: string) =>
  eventually(`a run of ${accountId} after ${since} ended`, async () => {
    const run = (await runsOf(client, accountId)).filter((r) => r.queuedAt >= since).at(-1);
    return run && ['succeeded', 'failed'].includes(run.status) ? run : undefined;
  });

/**
 * Issue 81, finding 13: the first sync after a user reconnects a bank whose accounts we already hold (a
 * re-authorisation, or a new consent the accounts carry over to) reads on from the stored transactions,
 * and its run says so (`reconnected`), in the run's answers and its events; one that reads everything
 * still says `initial`. Real api, worker and sandbox over HTTP.
 */
describe('sync: the run after a reconnection says it was incremental', () => {
  const stack = useStack({ ownDatabase: 'sync_reconnected', worker: true });
  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });

  /** Every account's first run (trigger `initial`, the whole history the consent allows). */
  const firstRuns = async (tenant: Tenant) => {
    const accounts = await accountsWhenSynced(tenant.client, tenant.userId);
    const firsts = new Map<string, Run>();
    for (const account of accounts) {
      const runs = await runsOf(tenant.client, account.id);
      expect(runs.map((r) => [r.trigger, r.status])).toEqual([['initial', 'succeeded']]);
      firsts.set(account.id, runs[0]);
    }
    return firsts;
  };

  /**
   * The run each account had after `since`: of an account with stored records, `reconnected` and read from
   * them on, its events saying so too; of one with none (the sandbox's credit card), `initial`, since it
   * reads everything the consent allows again. Answers each account's label.
   */
  const expectRunsAfterReconnecting = async (tenant: Tenant, firsts: Map<string, Run>, since: string) => {
    const events = async () =>
      dataOf<SyncEvent[]>(await tenant.client.get('/v1/events?type=sync.succeeded&limit=100'));
    const labels = new Map<string, string>();
    for (const [accountId, first] of firsts) {
      const run = await runEndedSince(tenant.client, accountId, since);
      const held = first.progress.inserted > 0;
      expect([run.trigger, run.status], `run ${run.id}`).toEqual([
        held ? 'reconnected' : 'initial',
        'succeeded',
      ]);
      if (held) {
        // Incremental: a window starting after the first run's, so fewer records read than it read.
        expect(run.window.from, `run ${run.id} starts from the stored records`).not.toBeNull();
        if (first.window.from)
          expect(Date.parse(run.window.from!)).toBeGreaterThan(Date.parse(first.window.from));
        expect(run.progress.fetched).toBeLessThan(first.progress.fetched);
        expect(run.progress.inserted).toBe(0);
      } else expect(run.window.from).toBe(first.window.from);
      const event = await eventually(`sync.succeeded of ${run.id}`, async () =>
        (await events()).find((e) => e.data.syncId === run.id),
      );
      expect(event.data.trigger).toBe(run.trigger);
      labels.set(accountId, run.trigger);
    }
    expect([...labels.values()], 'some account had records to read on from').toContain('reconnected');
    return labels;
  };

  it('labels the first sync after a re-authorisation `reconnected` where it reads on from stored records', async () => {
    const tenant = await onboard(stack);
    const consentId = await connect(stack, tenant);
    const firsts = await firstRuns(tenant);

    const since = new Date().toISOString();
    const asked = await tenant.client.post(`/v1/consents/${consentId}/reauthorise`, {
      redirectUrl: REDIRECT,
    });
    expect(asked.status).toBe(201);
    const back = await decideAtBank(apps(), asked.body.data.authorisationUrl);
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');

    await expectRunsAfterReconnecting(tenant, firsts, since);
  }, 180_000);

  it('labels the first syncs under a new consent for the same bank alike; consent.synced still lists them', async () => {
    const tenant = await onboard(stack);
    const first = await connect(stack, tenant);
    const firsts = await firstRuns(tenant);
    expect((await tenant.client.delete(`/v1/consents/${first}`)).status).toBeLessThan(300);

    const since = new Date().toISOString();
    const second = await connect(stack, tenant);
    const labels = await expectRunsAfterReconnecting(tenant, firsts, since);

    // The new consent's connection is ready once those syncs ended, as after any authorisation.
    const synced = await eventually('consent.synced of the new consent', async () =>
      dataOf<SyncedEvent[]>(await tenant.client.get('/v1/events?type=consent.synced&limit=100')).find(
        (e) => e.data.consentId === second,
      ),
    );
    expect(synced.data.accounts.map((a) => a.accountId).sort()).toEqual([...firsts.keys()].sort());
    for (const { accountId, syncId } of synced.data.accounts) {
      const run = dataOf<Run>(await tenant.client.get(`/v1/syncs/${syncId}`));
      expect([run.trigger, run.queuedAt >= since], accountId).toEqual([labels.get(accountId), true]);
    }
  }, 180_000);

  it('marks a first sync the previous release opened, unmarked, once its window starts from stored records', async () => {
    const tenant = await onboard(stack);
    await connect(stack, tenant);
    const firsts = await firstRuns(tenant);
    const [accountId] = [...firsts].find(([, run]) => run.progress.inserted > 0)!;
    // The previous release's statement (sync-runs.open of release 2026-11-29): no `reconnected` column.
    const runId = uuidV7();
    await stack.api.app.get(DatabasePool).rows({
      text: `INSERT INTO sync_runs (id, merchant_id, account_id, active_account_id, trigger, updated_at)
          VALUES ($1, $2, $3, $3, 'INITIAL', now())`,
      values: [runId, tenant.merchant.merchant.id, accountId],
    });
    expect(dataOf<Run>(await tenant.client.get(`/v1/syncs/${runId}`)).trigger).toBe('initial');

    const outcome = await stack.api.app
      .get(AccountSyncService)
      .run(
        { merchantId: tenant.merchant.merchant.id, accountId, runId },
        { finalAttempt: true, retryInMs: 0 },
      );
    expect(outcome).toBe('succeeded');
    const run = dataOf<Run>(await tenant.client.get(`/v1/syncs/${runId}`));
    expect([run.trigger, run.window.from === null]).toEqual(['reconnected', false]);
    // Events are listed once the relay has published them, a moment after the run's commit.
    const event = await eventually(`sync.succeeded of ${runId}`, async () =>
      dataOf<SyncEvent[]>(await tenant.client.get('/v1/events?type=sync.succeeded&limit=100')).find(
        (e) => e.data.syncId === runId,
      ),
    );
    expect(event.data.trigger).toBe('reconnected');
  }, 180_000);
});
