import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually, spawnScript } from './kit/index.js';

/**
 * A stop past its deadline names what it waits on: each closing hook still running, by class, not only
 * the step. An api once reached its deadline "stuck in: closing connections" while two of its BullMQ
 * queues waited for a Redis that had gone, and the log said nothing of which.
 */
describe('a stop that reaches its deadline', () => {
  it('exits 1 naming each closing hook still running, and none that finished', async () => {
    const app = spawnScript(fileURLToPath(new URL('fixtures/hanging-shutdown.mjs', import.meta.url)), {
      BUDGET_MS: '500',
    });
    await eventually('the app ready', () => (app.output().includes('ready') ? true : undefined));
    const end = await app.signalled('SIGTERM');
    expect(end.code, app.output()).toBe(1);
    const deadline = app
      .output()
      .split('\n')
      .find((line) => line.includes('shutdown did not finish'));
    expect(JSON.parse(deadline ?? '{}')).toMatchObject({
      stuckIn: 'closing connections',
      waitingOn: ['HangingCloser.onApplicationShutdown'],
    });
  });
});
