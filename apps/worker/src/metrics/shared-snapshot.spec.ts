import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { assertProperty, captureLogger, testConfig, uniqueQueuePrefix } from '#libs/testing';
import { SharedSnapshot, type Stamped } from './shared-snapshot.js';

interface Figures extends Stamped {
  by: number;
}

const REFRESH_MS = 60_000;

/**
 * Against the real Redis. What must hold, for any number of workers loading at once: once a copy exists,
 * one refresh costs the deployment one read, whoever makes it; every worker shows a copy no older than two
 * refreshes; and Redis failing or holding garbage costs a worker its sharing, never its figures.
 */
describe('a metrics snapshot shared by workers', () => {
  const config = testConfig({ QUEUE_PREFIX: uniqueQueuePrefix('shared-snapshot') });
  const redis = new Redis(config.redis.url);
  const { logger, text } = captureLogger('test', 'info');
  let keys = 0;

  afterAll(async () => {
    await redis.quit();
  });

  /** `workers` sharers of one fresh key, each counting the reads it makes; `reads` in total. */
  function workersOn(workers: number, client: Redis = redis) {
    const key = `${config.redis.queuePrefix}:metrics:test-${(keys += 1)}`;
    const reads: number[] = [];
    const sharers = Array.from(
      { length: workers },
      (_, by) =>
        new SharedSnapshot<Figures>(
          client,
          key,
          REFRESH_MS,
          async () => {
            reads.push(by);
            await new Promise((resolve) => setImmediate(resolve));
            return { at: Date.now(), by };
          },
          logger,
        ),
    );
    return { key, sharers, reads };
  }

  it('costs one read per refresh however many workers load at once, and all show that read', async () => {
    await assertProperty(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        async (workers, rounds) => {
          const { key, sharers, reads } = workersOn(workers);
          // A copy older than a refresh, as a worker left it.
          const stale: Figures = { at: Date.now() - REFRESH_MS - 1, by: -1 };
          await redis.set(key, JSON.stringify(stale));
          const first = await Promise.all(sharers.map((s) => s.load()));
          expect(reads).toHaveLength(1);
          const fresh = first.find((f) => f.by !== -1)!;
          // The reader shows its read; the others the stale copy (at most two refreshes old) or the fresh one.
          for (const shown of first) expect([stale.at, fresh.at]).toContain(shown.at);
          for (let round = 0; round < rounds; round += 1) {
            const later = await Promise.all(sharers.map((s) => s.load()));
            expect(later.map((f) => f.at)).toEqual(sharers.map(() => fresh.at));
          }
          expect(reads).toHaveLength(1);
          await redis.del(key, `${key}:claim`);
        },
      ),
      20,
    );
  });

  it('reads for itself when there is no copy yet, or one that does not parse, and leaves a good one', async () => {
    for (const garbage of [null, 'not json', '{"by":1}', 'null', '[]']) {
      const { key, sharers, reads } = workersOn(1);
      if (garbage !== null) await redis.set(key, garbage);
      const shown = await sharers[0].load();
      expect(reads).toEqual([0]);
      expect(JSON.parse((await redis.get(key))!)).toEqual(shown);
      await redis.del(key, `${key}:claim`);
    }
  });

  it('without Redis, each worker reads for itself, says so once, and still shows its figures', async () => {
    // Nothing listens on port 1: every command fails at once.
    const away = new Redis({
      port: 1,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    away.on('error', () => undefined);
    const { sharers, reads } = workersOn(2, away);
    const shown = [];
    for (let i = 0; i < 3; i += 1) shown.push(...(await Promise.all(sharers.map((s) => s.load()))));
    expect(reads).toHaveLength(6);
    expect(shown.every((f) => typeof f.at === 'number')).toBe(true);
    const warnings = text()
      .split('\n')
      .filter((line) => line.includes('Redis failed, so this worker reads the figures itself'));
    expect(warnings).toHaveLength(2);
    away.disconnect();
  });
});
