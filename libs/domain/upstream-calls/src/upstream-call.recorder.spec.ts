import { describe, expect, it } from 'vitest';
import { withWork } from '#libs/context';
import { DatabasePool } from '#libs/database';
import { Metrics } from '#libs/observability';
import { captureLogger, testConfig } from '#libs/testing';
import { UpstreamClient } from '#libs/upstream-client';
import { MAX_HELD_CALLS, UpstreamCallRecorder } from './upstream-call.recorder.js';
import { UpstreamCallRepository } from './upstream-call.repository.js';

const SUBJECT = {
  merchantId: '0190c0de-0000-7000-8000-000000000001',
  syncRunId: '0190c0de-0000-7000-8000-000000000002',
};
const attempt = (n: number) => ({
  operation: 'getTransactions',
  institutionId: 'sandbox-redirect',
  attempt: 1,
  startedAt: new Date(),
  durationMs: n,
  status: 503,
  errorKind: 'UNAVAILABLE',
  tracingId: `t${n}`,
});

describe('upstream call recorder while Postgres is away', () => {
  it('holds at most MAX_HELD_CALLS, counts the oldest it drops, and says so once', async () => {
    // A real pool to a port nothing listens on: every write is refused at once.
    const database = new DatabasePool(testConfig({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' }));
    const metrics = new Metrics('test');
    const logs = captureLogger();
    const client = new UpstreamClient({
      baseUrl: 'http://127.0.0.1:1',
      applicationId: 'a',
      applicationSecret: 's',
      apiVersion: '1',
      timeoutMs: 100,
    });
    const recorder = new UpstreamCallRecorder(
      client,
      logs.logger,
      new UpstreamCallRepository(database),
      metrics,
    );
    try {
      const extra = 1_234;
      // An attempt's entry cannot be written before it is sent: the attempt is held once it ends.
      await withWork(SUBJECT, async () => {
        const end = await recorder.begin(attempt(0));
        await end(attempt(0));
      });
      withWork(SUBJECT, () => {
        for (let n = 1; n < MAX_HELD_CALLS + extra; n += 1) recorder.record(attempt(n));
      });
      // Outside any consent, run or payment: not kept.
      recorder.record(attempt(-1));
      await recorder.flush();
      await recorder.flush();
      const dropped = await metrics.registry.getSingleMetric('bff_upstream_calls_dropped_total')!.get();
      expect(dropped.values[0].value).toBe(extra);
      expect(logs.lines.filter((line) => line.includes('cannot be written'))).toHaveLength(1);
    } finally {
      await client.close();
      await database.close();
    }
  });
});
