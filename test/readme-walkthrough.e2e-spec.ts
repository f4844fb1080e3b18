import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueQueuePrefix, useStack } from './kit/index.js';

const run = promisify(execFile);

/** The README's `sh` blocks between the walkthrough markers, in order: what a new user pastes. */
function walkthrough(): string {
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  const section = readme.split('<!-- walkthrough:start -->')[1]?.split('<!-- walkthrough:end -->')[0];
  if (!section) throw new Error('README.md has no walkthrough markers');
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks.length).toBeGreaterThanOrEqual(5);
  return blocks.join('\n');
}

/**
 * The README's "connect your first bank" walkthrough, run as written with bash, curl and jq against a
 * sandbox and an api whose public URLs are the ones they really listen on (as under `npm start`).
 */
describe('README: the first-bank walkthrough works as written', () => {
  const stack = useStack({
    worker: true,
    publicPorts: true,
    // The demo elsewhere than its default port, as after a changed .env: the walkthrough follows it.
    overrides: {
      LOG_LEVEL: 'silent',
      QUEUE_PREFIX: uniqueQueuePrefix('readme'),
      DEMO_PUBLIC_URL: 'http://localhost:5999',
    },
  });
  let bff: string;
  let adminToken: string;

  beforeAll(() => {
    bff = stack.api.url;
    adminToken = stack.api.config.api.adminToken;
  });

  it('ends with the accounts of the newly connected bank and their synced transactions', async () => {
    const script = `set -euo pipefail\n${walkthrough()}`;
    const { stdout } = await run('bash', ['-c', script], {
      env: { ...process.env, BFF: bff, ADMIN_TOKEN: adminToken },
      timeout: 60_000,
    });
    expect(stdout).toMatch(
      /^http:\/\/localhost:5999\/\?from=bank&consentId=[0-9a-f-]{36}&status=AUTHORIZED$/m,
    );
    const accounts = stdout
      .split('\n')
      .slice(1)
      .join('\n')
      .split(/\n(?=\{)/)
      .filter((chunk) => chunk.trim().startsWith('{'))
      .map((chunk) => chunk.split('\n}')[0] + '\n}')
      .map((chunk) => JSON.parse(chunk) as { id: string; type: string; balances: unknown[] });
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) {
      expect(account.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(account.balances.length).toBeGreaterThan(0);
    }
    // Step 7: the five newest transactions of the current account, one line each, amounts as decimals.
    const transactions = stdout.split('\n').filter((line) => /^\d{4}-\d\d-\d\dT/.test(line));
    expect(transactions).toHaveLength(5);
    for (const line of transactions) expect(line).toMatch(/^\S+ {2}-?\d+\.\d{2,4} [A-Z]{3} {2}\S/);
    // Step 8: the user's events, replayed from the start of their stream, oldest first.
    const events = stdout.split('\n').filter((line) => line.startsWith('event: '));
    expect(events[0]).toBe('event: consent.authorized');
    expect(events).toContain('event: sync.succeeded');
    expect(events).toContain('event: transactions.changed');
  });
});
