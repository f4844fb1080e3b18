import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLogger, eventually, testConfig, uniqueQueuePrefix, WAIT } from '#libs/testing';
import { CredentialRevocations, type Revocation } from './credential-revocations.js';

/** Against the real Redis: the revoking process is told before anything else, every other one by pub/sub. */
describe('credential revocations', () => {
  const config = testConfig({ QUEUE_PREFIX: uniqueQueuePrefix('revocations') });
  const redis = new Redis(config.redis.url);
  const { logger } = captureLogger('test', 'error');
  const here = new CredentialRevocations(redis, config, logger);
  const elsewhere = new CredentialRevocations(redis, config, logger);

  afterAll(async () => {
    await here.onApplicationShutdown();
    await elsewhere.onApplicationShutdown();
    await redis.quit();
  });

  it('tells its own listeners at once, before the publish settles, and other instances through Redis', async () => {
    const seenHere: Revocation[] = [];
    const seenElsewhere: Revocation[] = [];
    await here.subscribe((r) => seenHere.push(r));
    await elsewhere.subscribe((r) => seenElsewhere.push(r));
    const revocation: Revocation = { kind: 'apiKey', id: 'key-1' };

    const published = here.publish(revocation);
    // Nothing has been awaited yet: only a synchronous local delivery can have reached this listener.
    expect(seenHere).toEqual([revocation]);
    await published;
    await eventually(
      'the revocation heard by the other instance',
      () => {
        expect(seenElsewhere).toEqual([revocation]);
        return true;
      },
      WAIT.revocation,
      20,
    );
    // The Redis copy reaches the publisher too: eviction is idempotent, so hearing it twice is harmless.
    await eventually(
      'the Redis copy heard by the publisher',
      () => {
        expect(seenHere.length).toBe(2);
        return true;
      },
      WAIT.revocation,
      20,
    );
  });
});
