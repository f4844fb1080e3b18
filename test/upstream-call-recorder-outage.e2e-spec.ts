import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withWork } from '#libs/context';
import { DatabasePool, defaultMigrationsDir, migrate, PrismaService } from '#libs/database';
import { UpstreamCallRecorder } from '#libs/domain/upstream-calls';
import { Metrics } from '#libs/observability';
import {
  captureLogger,
  createConsentRow,
  eventually,
  onboard,
  type Stack,
  startApi,
  startStack,
  type Tenant,
  uniqueQueuePrefix,
  WAIT,
} from './kit/index.js';
import { type PrivatePostgres, startPrivatePostgres } from './kit/private-services.mjs';

/**
 * The upstream call log's recorder when Postgres is not there to take it (docs/upstream-calls.md): what
 * must hold is that a call never fails or waits for its log, the api keeps serving (503 with Retry-After
 * where it needs Postgres) and never crashes, what is held is bounded and written once Postgres is back,
 * each call once; and whatever is lost (held past the bound, held when the process stops, a row Postgres
 * refuses) is counted in `bff_upstream_calls_dropped_total` and logged, never silent, and never stops the
 * log for the calls beside it.
 */
let postgres: PrivatePostgres;
let stack: Stack;
let tenant: Tenant;
const logs = captureLogger('api', 'info');

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  await migrate(postgres.url, defaultMigrationsDir());
  stack = await startStack({
    overrides: { DATABASE_URL: postgres.url, QUEUE_PREFIX: uniqueQueuePrefix('call-recorder') },
    loggers: { api: logs.logger },
  });
  tenant = await onboard(stack);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await postgres?.destroy();
});

const attempt = (tracingId: string, durationMs = 12) => ({
  operation: 'getTransactions',
  institutionId: 'sandbox-redirect',
  attempt: 1,
  startedAt: new Date(),
  durationMs,
  status: 503,
  errorKind: 'UNAVAILABLE',
  tracingId,
});

/** A consent of the tenant's user, once Postgres (restarted by an earlier test) takes it. */
function newConsent(): Promise<string> {
  const user = { id: tenant.userId, merchantId: tenant.merchant.merchant.id };
  return eventually(
    'a consent written',
    async () => (await createConsentRow(stack.api.app.get(PrismaService), user)).id,
    WAIT.step,
  );
}

function record(
  recorder: UpstreamCallRecorder,
  consentId: string,
  tracingIds: string[],
  durationMs?: (id: string) => number,
): void {
  withWork({ merchantId: tenant.merchant.merchant.id, consentId }, () => {
    for (const id of tracingIds) recorder.record(attempt(id, durationMs?.(id)));
  });
}

/** The tracing ids of the consent's calls as written, with how often each was. */
async function writtenFor(consentId: string): Promise<Map<string, number>> {
  const rows = await stack.api.app.get(DatabasePool).rows<{ tracingId: string; n: number }>({
    text: `SELECT tracing_id AS "tracingId", count(*)::int AS n FROM upstream_calls
      WHERE consent_id = $1 GROUP BY tracing_id`,
    values: [consentId],
  });
  return new Map(rows.map((r) => [r.tracingId, r.n]));
}

async function droppedIn(metrics: Metrics): Promise<number> {
  const metric = metrics.registry.getSingleMetric('bff_upstream_calls_dropped_total');
  return metric ? ((await metric.get()).values[0]?.value ?? 0) : 0;
}

const ids = (label: string, count: number) => Array.from({ length: count }, (_, n) => `${label}-${n}`);

describe('upstream call recorder: Postgres away', () => {
  it('holds what is recorded while Postgres stops mid-write, keeps serving, then writes each call once', async () => {
    const recorder = stack.api.app.get(UpstreamCallRecorder);
    const consentId = await newConsent();
    const droppedBefore = await droppedIn(stack.api.app.get(Metrics));
    const warnedBefore = logs.lines.filter((l) => l.includes('cannot be written')).length;

    // Several batches on their way, and Postgres stopped under them as an operator's restart does
    // (57P01 to every connection). Not 'immediate': the private cluster commits asynchronously, so a
    // crash may forget a commit it confirmed, which no writer could know of.
    const before = ids('before', 2_400);
    record(recorder, consentId, before);
    const writing = recorder.flush();
    await postgres.stop('fast');
    await writing;
    const during = ids('during', 1_200);
    record(recorder, consentId, during);

    // The api keeps answering: what needs Postgres is a 503 with Retry-After, never a 500 or a crash.
    const answer = await tenant.client.get(`/v1/users/${tenant.userId}`);
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await stack.anonymous.get('/health/live')).status).toBe(200);

    await postgres.start();
    const written = await eventually(
      'every call held written once Postgres is back',
      async () => {
        const found = await writtenFor(consentId).catch(() => undefined);
        return found && found.size === before.length + during.length ? found : undefined;
      },
      WAIT.step,
    );
    expect([...written.values()].filter((n) => n !== 1)).toEqual([]);
    expect(new Set(written.keys())).toEqual(new Set([...before, ...during]));
    // Said once for the outage, and once when it is over; nothing dropped, under the bound.
    expect(logs.lines.filter((l) => l.includes('cannot be written')).length).toBe(warnedBefore + 1);
    expect(logs.text()).toContain('upstream call log written again');
    expect(await droppedIn(stack.api.app.get(Metrics))).toBe(droppedBefore);
  });

  it('writes the calls beside one whose values Postgres cannot take, and keeps writing after it', async () => {
    const recorder = stack.api.app.get(UpstreamCallRecorder);
    const metrics = stack.api.app.get(Metrics);
    const consentId = await newConsent();
    const droppedBefore = await droppedIn(metrics);
    // The upstream's tracing id is the upstream's: longer than the column, or with a NUL byte in it. And a
    // value no column can take (a duration past int), standing for any row Postgres refuses.
    const long = `long-${'x'.repeat(400)}`;
    const nul = 'nul-\u0000-byte';
    const good = ids('beside', 20);
    record(recorder, consentId, [...good.slice(0, 10), long, nul, 'too-long-ago', ...good.slice(10)], (id) =>
      id === 'too-long-ago' ? 2 ** 31 : 12,
    );
    await recorder.flush();
    const later = ids('later', 5);
    record(recorder, consentId, later);
    await recorder.flush();
    const written = await writtenFor(consentId);
    for (const id of [...good, ...later]) expect(written.get(id), id).toBe(1);
    // Kept, as far as the column goes: the start of a long id is still what support quotes.
    expect(written.size).toBe(good.length + later.length + 2);
    expect([...written.keys()].find((id) => id.startsWith('long-'))).toBe(long.slice(0, 255));
    expect([...written.keys()].find((id) => id.startsWith('nul-'))).toBe('nul--byte');
    // The one row Postgres refused is dropped, counted and said, not held for ever.
    expect(written.has('too-long-ago')).toBe(false);
    expect(await droppedIn(metrics)).toBe(droppedBefore + 1);
    expect(logs.lines.filter((l) => l.includes('Postgres refused'))).toHaveLength(1);
  });

  it('counts and logs what it holds when the process stops while Postgres is away', async () => {
    // An api of its own, to stop: the stack's goes on serving the other tests.
    const stopping = captureLogger('api', 'info');
    const api = await startApi(
      stack.sandbox.url,
      {
        DATABASE_URL: postgres.url,
        QUEUE_PREFIX: uniqueQueuePrefix('call-recorder-stop'),
        LOG_LEVEL: 'info',
      },
      stopping.logger,
    );
    const metrics = api.app.get(Metrics);
    const consentId = await newConsent();
    try {
      await postgres.stop('fast');
      record(api.app.get(UpstreamCallRecorder), consentId, ids('at-stop', 30));
    } finally {
      await api.close();
      await postgres.start();
    }
    expect(await droppedIn(metrics)).toBe(30);
    expect(stopping.text()).toMatch(/upstream call log entries lost at shutdown/);
    expect(stopping.lines.find((l) => l.includes('lost at shutdown'))).toContain('"lost":30');
  });
});
