import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { AccountSyncService, type SyncOutcome } from '#libs/domain/sync';
import {
  activeSyncRun,
  assertProperty,
  attendedSync,
  connectedSavingsAccount,
  eventually,
  propertyTimeout,
  sandboxOf,
  tuned,
  uniqueQueuePrefix,
  upstreamTransactions,
  useStack,
  useTenant,
} from '../kit/index.js';

/**
 * Issue 24, defect 2, as an invariant: whatever faults an account's sync meets (5xx, 429, dropped
 * connections, timeouts, a worker whose job is taken over mid-run) and however many attempts it takes,
 * when the run ends
 * - the stored set equals the upstream's within the run's window, and nothing outside it moved;
 * - the run's counts are the true differences between the stored set before and after the run;
 * - `transactions.changed` is recorded exactly once when the stored set changed, never otherwise, and one
 *   `sync.succeeded` or `sync.failed`, all with the run's final counts.
 *
 * The test plays BullMQ's part (it calls the sync service once per attempt, as the processor does), so
 * it chooses exactly which attempt meets which fault; everything below that is real: Postgres, the
 * upstream client and the sandbox over HTTP, whose fault rules fail a chosen page of the window.
 */

/** Small pages: the savings account's 467 records are 19 pages, so faults land mid-window. */
const PAGE_SIZE = 25;

type Fault =
  | { kind: 'status-500' | 'drop' | 'timeout' | 'rate-limited'; atPage: number }
  | { kind: 'taken-over'; afterPages: number };

const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.record({
    kind: fc.constantFrom(
      'status-500' as const,
      'drop' as const,
      'timeout' as const,
      'rate-limited' as const,
    ),
    // From the second page on: each attempt's first call succeeds, so a run of failures never opens the
    // upstream's circuit breaker for the attempts that follow.
    atPage: fc.integer({ min: 1, max: 22 }),
  }),
  fc.record({ kind: fc.constant('taken-over' as const), afterPages: fc.nat(20) }),
);

/** What the stored set looks like before the run under test. */
const before = fc.oneof(
  fc.constant({ synced: false as const }),
  fc.record({
    synced: fc.constant(true as const),
    deleted: fc.nat(12),
    altered: fc.nat(12),
    phantoms: fc.nat(6),
  }),
);

interface StoredRow {
  k: string;
  raw: string;
  date: Date;
}

describe('property: a sync run ends with the upstream set and the true counts, whatever the faults', () => {
  const stack = useStack({
    overrides: {
      // Nobody consumes this api's queue: the test is the only worker, one attempt at a time.
      QUEUE_PREFIX: uniqueQueuePrefix('sync-props'),
      ...tuned({
        syncPageSize: PAGE_SIZE,
        // Wide enough that an incremental window spans several pages of the savings account.
        syncOverlapDays: 90,
      }),
      UPSTREAM_TIMEOUT_MS: '300',
    },
  });
  const tenant = useTenant(stack);
  const sandbox = sandboxOf(stack);

  const db = () => stack.api.app.get(DatabasePool);

  async function storedRows(accountId: string): Promise<Map<string, StoredRow>> {
    const rows = await db().rows<StoredRow>({
      text: `SELECT dedupe_key AS k, raw::text AS raw, date FROM transactions WHERE account_id = $1`,
      values: [accountId],
    });
    return new Map(rows.map((r) => [r.k, r]));
  }

  const savingsAccount = () => connectedSavingsAccount(stack, tenant);
  const activeRun = (accountId: string) => activeSyncRun(stack, tenant, accountId);

  async function attempt(runId: string, accountId: string, final: boolean): Promise<SyncOutcome | 'threw'> {
    const job = { merchantId: tenant.merchant.merchant.id, accountId, runId, attended: attendedSync() };
    return stack.api.app
      .get(AccountSyncService)
      .run(job, { finalAttempt: final, retryInMs: 2_000 })
      .catch(() => 'threw' as const);
  }

  /** The sandbox fails the account's transaction pages from the `atPage`th on, enough times to fail the attempt. */
  async function inject(upstreamId: string, f: Extract<Fault, { atPage: number }>): Promise<void> {
    const path = `/accounts/${upstreamId}/transactions`;
    // The client retries 3 times: four failures in a row fail the attempt (a 429 longer than 10 s at once).
    const rule = {
      'status-500': { status: 500, count: 4 },
      drop: { drop: true, count: 4 },
      timeout: { latencyMs: 400, count: 4 },
      'rate-limited': { status: 429, retryAfterSeconds: 60, count: 1 },
    }[f.kind];
    const added = await sandbox.admin('POST', '/faults', { method: 'GET', path, after: f.atPage, ...rule });
    expect(added.status).toBe(201);
  }

  /** The stored list's `meta`, as a merchant reads it. */
  async function listMeta(accountId: string) {
    const page = await tenant.client.get(`/v1/accounts/${accountId}/transactions?limit=1`);
    expect(page.status).toBe(200);
    return (page.body as { meta: { complete: boolean; syncStatus: string; syncError: string | null } }).meta;
  }

  async function pagesOf(runId: string): Promise<number> {
    const [row] = await db().rows<{ pages: number; status: string }>({
      text: `SELECT pages, status::text AS status FROM sync_runs WHERE id = $1`,
      values: [runId],
    });
    return row.status === 'RUNNING' ? row.pages : Number.POSITIVE_INFINITY;
  }

  /** Another worker takes the run over once this attempt has written `afterPages` pages (or ended). */
  async function takenOver(runId: string, accountId: string, upstreamId: string, afterPages: number) {
    // Slow pages, so the takeover lands while the first attempt is still reading.
    await sandbox.admin('POST', '/faults', {
      method: 'GET',
      path: `/accounts/${upstreamId}/transactions`,
      latencyMs: 20,
    });
    const first = attempt(runId, accountId, false);
    let settled = false;
    void first.finally(() => (settled = true));
    await eventually('the first attempt under way', async () =>
      settled || (await pagesOf(runId)) >= afterPages ? true : undefined,
    );
    await sandbox.admin('DELETE', '/faults');
    const second = attempt(runId, accountId, false);
    // The superseded attempt stops at its next write (its page rolled back), or had already ended the run.
    await Promise.all([first, second]);
  }

  it(
    'any fault schedule: exact stored set, true counts, transactions.changed exactly when the set changed',
    async () => {
      await assertProperty(
        fc.asyncProperty(
          before,
          fc.array(fault, { maxLength: 4 }),
          fc.boolean(),
          async (start, faults, endsFailed) => {
            const account = await savingsAccount();
            await sandbox.admin('DELETE', '/faults');
            if (start.synced) {
              const baseline = await activeRun(account.id);
              expect(await attempt(baseline, account.id, true)).toBe('succeeded');
              await mutateStored(account.id, start);
            }
            const before = await storedRows(account.id);
            const runId = await activeRun(account.id);

            for (const f of faults) {
              if (f.kind === 'taken-over') {
                await takenOver(runId, account.id, account.upstreamId, f.afterPages);
              } else {
                await inject(account.upstreamId, f);
                await attempt(runId, account.id, false);
              }
              await sandbox.admin('DELETE', '/faults');
              // Whole only once a sync has succeeded: never while a first one is short of the bank.
              const succeeded = (await runRow(runId)).status === 'SUCCEEDED';
              expect((await listMeta(account.id)).complete).toBe(start.synced || succeeded);
            }
            // A fault past the window's last page never struck: that attempt ended the run already.
            const failing = endsFailed && (await runRow(runId)).status === 'RUNNING';
            if (failing) await inject(account.upstreamId, { kind: 'status-500', atPage: 1 });
            await attempt(runId, account.id, true);
            await sandbox.admin('DELETE', '/faults');

            const run = await runRow(runId);
            const after = await storedRows(account.id);
            const truth = differences(before, after);
            expect(run.status).toBe(failing ? 'FAILED' : 'SUCCEEDED');
            const meta = await listMeta(account.id);
            expect(meta.complete).toBe(start.synced || !failing);
            expect(meta.syncStatus).toBe(failing ? 'failed' : 'synced');
            expect(meta.syncError === null).toBe(!failing);
            expect({ inserted: run.inserted, updated: run.updated, removed: run.removed }).toEqual(truth);

            const window = { from: run.windowFrom, before: run.windowBefore! };
            const inWindow = (date: Date) => (!window.from || date >= window.from) && date < window.before;
            // Outside the window nothing moved.
            const outside = (rows: Map<string, StoredRow>) =>
              [...rows.values()]
                .filter((r) => !inWindow(r.date))
                .map((r) => `${r.k}:${r.raw}`)
                .sort();
            expect(outside(after)).toEqual(outside(before));
            if (!failing) {
              const upstream = (await upstreamTransactions(stack, account.consentId, account.upstreamId))
                .filter((t) => inWindow(new Date(t.date)))
                .map((t) => `id:${t.id}`)
                .sort();
              const stored = [...after.values()]
                .filter((r) => inWindow(r.date))
                .map((r) => r.k)
                .sort();
              expect(stored).toEqual(upstream);
              expect(run.fetched).toBe(upstream.length);
              expect(run.unchanged).toBe(upstream.length - truth.inserted - truth.updated);
            }

            const events = await eventsOf(runId);
            const changed = truth.inserted + truth.updated + truth.removed > 0;
            expect(events.map((e) => e.type).sort()).toEqual(
              [
                failing ? 'sync.failed' : 'sync.succeeded',
                ...(changed ? ['transactions.changed'] : []),
              ].sort(),
            );
            for (const e of events) {
              expect(e.progress).toMatchObject({
                inserted: run.inserted,
                updated: run.updated,
                removed: run.removed,
              });
            }
          },
        ),
        25,
      );
    },
    propertyTimeout(240_000),
  );

  /** Stored rows made to differ from the bank's: some gone, some changed, some the bank never had. */
  async function mutateStored(
    accountId: string,
    change: { deleted: number; altered: number; phantoms: number },
  ): Promise<void> {
    // The newest rows: an incremental window always covers them.
    const newest = await db().rows<{ id: string }>({
      text: `SELECT id FROM transactions WHERE account_id = $1 ORDER BY date DESC, id DESC LIMIT 40`,
      values: [accountId],
    });
    const ids = newest.map((r) => r.id);
    const altered = ids.slice(0, change.altered);
    const deleted = ids.slice(change.altered, change.altered + change.deleted);
    const copied = ids.slice(
      change.altered + change.deleted,
      change.altered + change.deleted + change.phantoms,
    );
    await db().rows({
      text: `UPDATE transactions SET raw = jsonb_set(raw, '{description}', '"changed since"') WHERE id = ANY($1::uuid[])`,
      values: [altered],
    });
    await db().rows({ text: `DELETE FROM transactions WHERE id = ANY($1::uuid[])`, values: [deleted] });
    await db().rows({
      text: `INSERT INTO transactions (id, merchant_id, account_id, dedupe_key, date, status, amount, currency, raw, updated_at)
        SELECT gen_random_uuid(), merchant_id, account_id, 'id:phantom-' || gen_random_uuid(), date, status, amount,
          currency, raw, now()
        FROM transactions WHERE id = ANY($1::uuid[])`,
      values: [copied],
    });
  }

  async function runRow(runId: string) {
    const [row] = await db().rows<{
      status: string;
      inserted: number;
      updated: number;
      unchanged: number;
      removed: number;
      fetched: number;
      windowFrom: Date | null;
      windowBefore: Date | null;
    }>({
      text: `SELECT status::text AS status, inserted, updated, unchanged, removed, fetched,
          window_from AS "windowFrom", window_before AS "windowBefore"
        FROM sync_runs WHERE id = $1`,
      values: [runId],
    });
    return row;
  }

  async function eventsOf(runId: string) {
    return db().rows<{ type: string; progress: Record<string, number> }>({
      text: `SELECT type::text AS type, data->'progress' AS progress FROM merchant_events WHERE data->>'syncId' = $1`,
      values: [runId],
    });
  }
});

/** The true differences between two stored sets: rows new, rows changed, rows gone. */
function differences(
  before: Map<string, StoredRow>,
  after: Map<string, StoredRow>,
): { inserted: number; updated: number; removed: number } {
  let inserted = 0;
  let updated = 0;
  for (const [k, row] of after) {
    const was = before.get(k);
    if (!was) inserted += 1;
    else if (JSON.stringify(JSON.parse(was.raw)) !== JSON.stringify(JSON.parse(row.raw))) updated += 1;
  }
  const removed = [...before.keys()].filter((k) => !after.has(k)).length;
  return { inserted, updated, removed };
}
