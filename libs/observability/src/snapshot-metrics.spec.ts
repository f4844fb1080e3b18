import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RefreshingSnapshot, SnapshotHistogram } from './snapshot-metrics.js';

describe('SnapshotHistogram', () => {
  it('exposes counts read whole as cumulative buckets, a sum and a count', async () => {
    const registry = new Registry();
    registry.setDefaultLabels({ app: 'worker' });
    new SnapshotHistogram({
      name: 'bff_lag_seconds',
      help: 'Lag.',
      buckets: [60, 300],
      registers: [registry],
      collect: () => Promise.resolve({ counts: [2, 0, 1], sum: 1000 }),
    });
    expect(await registry.metrics()).toBe(
      [
        '# HELP bff_lag_seconds Lag.',
        '# TYPE bff_lag_seconds histogram',
        'bff_lag_seconds_bucket{le="60",app="worker"} 2',
        'bff_lag_seconds_bucket{le="300",app="worker"} 2',
        'bff_lag_seconds_bucket{le="+Inf",app="worker"} 3',
        'bff_lag_seconds_sum{app="worker"} 1000',
        'bff_lag_seconds_count{app="worker"} 3',
        '',
      ].join('\n'),
    );
  });

  it('shows no samples before anything is known', async () => {
    const registry = new Registry();
    new SnapshotHistogram({
      name: 'bff_lag_seconds',
      help: 'Lag.',
      buckets: [60],
      registers: [registry],
      collect: () => Promise.resolve(undefined),
    });
    expect(await registry.metrics()).toBe('# HELP bff_lag_seconds Lag.\n# TYPE bff_lag_seconds histogram\n');
  });
});

describe('RefreshingSnapshot', () => {
  it('loads once for concurrent readers and again only once the value is older than the age', async () => {
    let clock = 0;
    let loads = 0;
    const snapshot = new RefreshingSnapshot(
      () => Promise.resolve((loads += 1)),
      15_000,
      () => undefined,
      () => clock,
    );
    expect(await Promise.all([snapshot.get(), snapshot.get(), snapshot.get()])).toEqual([1, 1, 1]);
    clock = 14_999;
    expect(await snapshot.get()).toBe(1);
    clock = 15_000;
    expect(await snapshot.get()).toBe(2);
  });

  it('keeps the last good value when a load fails, and says so', async () => {
    let clock = 0;
    let fail = false;
    const errors: unknown[] = [];
    const snapshot = new RefreshingSnapshot(
      () => (fail ? Promise.reject(new Error('down')) : Promise.resolve('good')),
      10,
      (error) => errors.push(error),
      () => clock,
    );
    expect(await snapshot.get()).toBe('good');
    fail = true;
    clock = 10;
    expect(await snapshot.get()).toBe('good');
    expect(errors).toHaveLength(1);
    clock = 25;
    expect(snapshot.ageSeconds()).toBe(0.025);
  });
});
