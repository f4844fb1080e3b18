import { describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { BULK_CONCURRENCY_WHILE_INTERACTIVE, JobProducerService, LaneGovernor } from '#libs/queue';
import {
  accountsWhenSynced,
  connect,
  eventually,
  onboard,
  rootApplication,
  runWhenEnded,
  SandboxHttp,
  uniqueName,
  useStack,
} from './kit/index.js';

/** Upstream webhooks waiting to be fanned out when the sync is asked for: seconds of the worker's time. */
const FLOOD = 3_000;
/** How long the bank takes over the sync's page: time for the fan-out jobs already running to finish. */
const BANK_LATENCY_MS = 5_000;

/**
 * Lanes (libs/queue/src/lanes.ts): a sync a merchant asked for is work someone waits for. Behind a flood
 * of upstream webhooks (bulk work: fan-out at 50 at once) it used to wait for the whole flood, the worker's
 * event loop serving the fan-out's callbacks 25 to 1. The invariants: while it runs, the flood is fanned
 * out one job at a time; it ends while the flood is still waiting; and the bulk queue gets its
 * concurrency back once no such work runs.
 */
describe('lanes: a sync asked for is not queued behind bulk work', () => {
  // The fan-out backlog is this test's own: no other test's worker takes it.
  const stack = useStack({ ownDatabase: 'lanes', worker: true });

  it('fans a flood out one job at a time while a sync asked for runs, which ends before the flood', async () => {
    const tenant = await onboard(stack);
    await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    const worker = stack.worker!;
    const governor = worker.app.get(LaneGovernor);
    await eventually('the first syncs handed the bulk queues back', () =>
      governor.givingWay() ? undefined : true,
    );

    // Webhooks for payments the BFF does not hold, as the receiver stores them: each a fan-out job.
    const flood = await stack.api.app.get(DatabasePool).rows<{ id: string }>({
      text: `INSERT INTO inbound_events (id, event_id, type, application_id, payload, updated_at)
             SELECT gen_random_uuid(), $2 || n, 'payment.state.success', $1,
                    jsonb_build_object('data', jsonb_build_object('paymentId', $2 || n, 'status', 'COMPLETED')), now()
             FROM generate_series(1, $3::int) AS n RETURNING id`,
      values: [rootApplication(stack), uniqueName('lanes-'), FLOOD],
    });
    const producer = worker.app.get(JobProducerService);
    await producer.enqueueMany(
      'events.fan-out',
      flood.map(({ id }) => ({ inboundEventId: id })),
    );
    const events = producer.queueFor('events.fan-out');

    // The bank takes its time over the sync's page: the sync runs long enough to watch the flood give way.
    const bank = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const slow = await bank.admin('POST', '/faults', {
      path: '/accounts/*/transactions',
      latencyMs: BANK_LATENCY_MS,
      count: 1,
    });
    expect(slow.status).toBe(201);

    const asked = await tenant.client.post<{ data: { syncId: string } }>(`/v1/accounts/${account.id}/sync`);
    expect(asked.status).toBe(202);
    const samples: { at: number; active: number }[] = [];
    let ended = false;
    const watching = (async () => {
      while (!ended) {
        samples.push({ at: Date.now(), active: await events.getActiveCount() });
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const run = await runWhenEnded(tenant.client, asked.body.data.syncId).finally(() => (ended = true));
    await watching;
    expect(run.status).toBe('succeeded');
    const left = await events.getJobCountByTypes('wait', 'prioritized');
    expect(left, 'fan-out jobs still waiting when the sync ended').toBeGreaterThan(0);
    // The fan-out jobs already running when the sync began finish in their own time (longer on a loaded
    // machine); once the flood is down to BULK_CONCURRENCY_WHILE_INTERACTIVE it stays there until the sync ends.
    const during = samples.filter(
      ({ at }) => at >= Date.parse(run.startedAt as string) && at <= Date.parse(run.finishedAt as string),
    );
    const gaveWay = during.findIndex((s) => s.active <= BULK_CONCURRENCY_WHILE_INTERACTIVE);
    expect(gaveWay, 'the flood gave way while the sync waited on the bank').toBeGreaterThanOrEqual(0);
    const after = during.slice(gaveWay);
    expect(after.length, 'samples taken after it gave way').toBeGreaterThan(3);
    expect(Math.max(...after.map((s) => s.active))).toBeLessThanOrEqual(BULK_CONCURRENCY_WHILE_INTERACTIVE);

    await eventually('the flood fanned out at full speed again', async () =>
      (await events.getJobCountByTypes('wait', 'prioritized', 'active')) === 0 ? true : undefined,
    );
    expect(governor.givingWay()).toBe(false);
  });
});
