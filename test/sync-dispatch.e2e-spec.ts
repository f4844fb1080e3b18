import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { AccountSyncStateRepository } from '#libs/domain/accounts';
import { SyncDispatcherService } from '#libs/domain/sync';
import { FIRST_SYNC_ASKED_WITHIN_MS } from '#libs/domain/sync-runs';
import { UserRepository } from '#libs/domain/users';
import { QueueName } from '#libs/queue';
import {
  bankRedirect,
  createConsentRow,
  createDueAccounts,
  createMerchant,
  createUser,
  dataOf,
  eventually,
  onboard,
  type Stack,
  tuned,
  useStack,
} from './kit/index.js';

describe('sync dispatcher: due accounts in batches, one job per account however often it runs', () => {
  // The dispatcher reads every due account of its database: this test has one of its own.
  const stack = useStack({
    ownDatabase: 'dispatch',
    worker: true,
    overrides: { ...tuned({ syncDispatchEverySeconds: 3600, institutionsRefreshMinutes: 600 }) },
  });
  let worker: NonNullable<Stack['worker']>;
  let api: Stack['api'];
  let queue: Queue;
  let prisma: PrismaService;

  beforeAll(async () => {
    ({ api, worker } = stack as Required<Stack>);
    queue = worker.app.get<Queue>(getQueueToken(QueueName.Sync));
    // Nothing runs: the test looks at what was enqueued.
    await queue.pause();
    prisma = worker.app.get(PrismaService);
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true });
  });

  it('schedules the dispatcher and the institutions refresh once for the deployment', async () => {
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.every])).toEqual([['sync.dispatch', 3600000]]);
    const maintenance = worker.app.get<Queue>(getQueueToken(QueueName.Maintenance));
    expect((await maintenance.getJobSchedulers()).map((s) => s.key)).toEqual([
      'maintenance.refresh-institutions',
    ]);
  });

  it('enqueues every due account of authorised consents once, and nothing on a repeat', async () => {
    // The deployment's own dispatch (its hourly schedule, fired at the turn of an hour) must not open the
    // runs first: its schedule goes, and any dispatch already running is let finish.
    await queue.removeJobScheduler('sync.dispatch');
    await eventually('no dispatch running', async () =>
      (await queue.getActiveCount()) === 0 ? true : undefined,
    );
    const merchant = await createMerchant(api);
    const user = await createUser(api.app.get(UserRepository), merchant.merchant.id);
    const consent = await createConsentRow(prisma, user);
    const due = await createDueAccounts(prisma, consent, 2500);
    // Not due, stopped, or under a revoked consent: never enqueued.
    await createDueAccounts(prisma, consent, 5, new Date(Date.now() + 3_600_000));
    const revoked = await createConsentRow(prisma, user);
    await prisma.consent.update({ where: { id: revoked.id }, data: { status: 'REVOKED' } });
    await createDueAccounts(prisma, revoked, 5);
    const stopped = await createDueAccounts(prisma, consent, 3);
    await prisma.account.updateMany({ where: { id: { in: stopped } }, data: { syncStatus: 'STOPPED' } });

    const dispatcher = worker.app.get(SyncDispatcherService);
    const first = await dispatcher.dispatch();
    expect(first.enqueued).toBe(2500);
    const again = await Promise.all([dispatcher.dispatch(), dispatcher.dispatch()]);
    expect(again.map((r) => r.enqueued)).toEqual([0, 0]);

    const jobs = await queue.getJobs(['wait', 'prioritized', 'delayed']);
    const accountJobs = jobs.filter((j) => j.name === 'sync.account');
    expect(accountJobs).toHaveLength(2500);
    expect(new Set(accountJobs.map((j) => (j.data as { accountId: string }).accountId))).toEqual(
      new Set(due),
    );
    const runs = await prisma.syncRun.findMany({ where: { merchantId: merchant.merchant.id } });
    expect(runs).toHaveLength(2500);
    expect(runs.every((r) => r.status === 'QUEUED' && r.trigger === 'SCHEDULED')).toBe(true);
  }, 60_000);

  it("leaves a just-authorised consent's accounts to its first syncs, and finds them should those be lost", async () => {
    const tenant = await onboard(stack);
    const consent = dataOf<{ id: string; authorisationUrl: string }>(
      await tenant.client.post(`/v1/users/${tenant.userId}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: 'https://app.merchant.example/banks/done',
      }),
      201,
    );
    const apps = { apiUrl: api.url, sandboxUrl: stack.sandbox.url };
    const callback = await bankRedirect(apps, consent.authorisationUrl);
    // The authorisation places the accounts, commits, then asks for their first syncs on the user's behalf
    // (back from the bank in their browser). Held here, that ask cannot open their runs.
    const hold = new pg.Client({ connectionString: stack.databaseUrl });
    await hold.connect();
    try {
      await hold.query('BEGIN');
      await hold.query('LOCK TABLE sync_runs IN SHARE MODE');
      const back = fetch(callback, { redirect: 'manual' });
      // Read outside the holding transaction: pg_stat_activity is a snapshot within one.
      await eventually('the first syncs asked for, held', async () => {
        const waiting = await prisma.$queryRaw<unknown[]>`
          SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND query LIKE '%INSERT INTO sync_runs%'`;
        return waiting.length > 0 ? true : undefined;
      });
      // A dispatcher round now would read the bank without the user (one of its daily reads): none is due.
      const syncState = worker.app.get(AccountSyncStateRepository);
      const placed = await prisma.account.findMany({
        where: { consentId: consent.id },
        select: { id: true },
      });
      expect(placed.length).toBeGreaterThan(0);
      const dueIn = async (ms: number) =>
        (await syncState.dueForSync(new Date(Date.now() + ms), null, 10_000)).filter((a) =>
          placed.some((p) => p.id === a.accountId),
        ).length;
      expect(await dueIn(0)).toBe(0);
      // Should the ask be lost, the dispatcher finds them a little later.
      expect(await dueIn(FIRST_SYNC_ASKED_WITHIN_MS + 1_000)).toBe(placed.length);
      await hold.query('COMMIT');
      const answer = await back;
      await answer.arrayBuffer();
      expect(answer.status).toBe(302);
    } finally {
      await hold.end();
    }
    const runs = await prisma.syncRun.findMany({ where: { account: { consentId: consent.id } } });
    expect(runs.map((r) => r.trigger)).toEqual(runs.map(() => 'INITIAL'));
    expect(runs).toHaveLength(await prisma.account.count({ where: { consentId: consent.id } }));
  });
});
