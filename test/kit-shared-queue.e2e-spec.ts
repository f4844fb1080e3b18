import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnWorker, startStack, startWorker, useStack } from './kit/index.js';

// Files run in parallel on one Redis: a worker on the prefix they share would take other files' jobs.
describe('test kit: workers never share the test queue', () => {
  const stack = useStack({ worker: true });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0');
  afterAll(() => redis.quit());

  it('refuses a worker on the shared prefix, in this process or as its own', async () => {
    const shared = process.env.QUEUE_PREFIX!;
    await expect(startWorker({})).rejects.toThrow(`shared test queue prefix (${shared})`);
    expect(() => spawnWorker({})).toThrow(`shared test queue prefix (${shared})`);
  });

  it('gives a stack with a worker a prefix of its own, which its api and worker share', () => {
    const prefix = stack.worker!.config.redis.queuePrefix;
    expect(prefix).not.toBe(process.env.QUEUE_PREFIX);
    expect(stack.api.config.redis.queuePrefix).toBe(prefix);
  });

  it("leaves none of its own prefix's keys in Redis once closed", async () => {
    const own = await startStack({ worker: true });
    const keys = () => redis.keys(`{${own.api.config.redis.queuePrefix}}:*`);
    // A worker marks its queues as it starts.
    expect((await keys()).length).toBeGreaterThan(0);
    await own.close();
    expect(await keys()).toEqual([]);
  });
});
