import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SyncRunMetrics } from './sync-run.metrics.js';

/** The counter's series as `outcome institution` → value, from the registry's own reading. */
async function runs(registry: Registry): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('bff_sync_runs_total');
  const { values } = await metric!.get();
  return Object.fromEntries(values.map((v) => [`${v.labels.outcome} ${v.labels.institution}`, v.value]));
}

describe('SyncRunMetrics', () => {
  it('counts runs by outcome and institution, each institution’s outcomes from 0', async () => {
    const registry = new Registry();
    const metrics = new SyncRunMetrics(registry);
    metrics.finished('succeeded', 'sandbox-redirect');
    metrics.finished('succeeded', 'sandbox-redirect');
    metrics.finished('failed', 'sandbox-redirect');
    metrics.finished('cancelled', 'modelo-sandbox');
    expect(await runs(registry)).toEqual({
      'succeeded sandbox-redirect': 2,
      'failed sandbox-redirect': 1,
      'cancelled sandbox-redirect': 0,
      'succeeded modelo-sandbox': 0,
      'failed modelo-sandbox': 0,
      'cancelled modelo-sandbox': 1,
    });
  });

  it('labels an id of another shape, or past 500 institutions, `other`', async () => {
    const registry = new Registry();
    const metrics = new SyncRunMetrics(registry);
    for (let i = 0; i < 500; i++) metrics.finished('succeeded', `bank-${i}`);
    metrics.finished('failed', 'bank-500');
    metrics.finished('failed', 'not a label {"x"}');
    metrics.finished('failed', 'bank-7');
    const counted = await runs(registry);
    expect(counted['failed other']).toBe(2);
    expect(counted['failed bank-7']).toBe(1);
    expect(counted['succeeded bank-500']).toBeUndefined();
    expect(new Set(Object.keys(counted).map((key) => key.split(' ')[1])).size).toBe(501);
  });

  it('shares the counter of a second instance on one registry (two apps in one test process)', async () => {
    const registry = new Registry();
    new SyncRunMetrics(registry).finished('failed', 'sandbox-redirect');
    new SyncRunMetrics(registry).finished('failed', 'sandbox-redirect');
    expect((await runs(registry))['failed sandbox-redirect']).toBe(2);
  });
});
