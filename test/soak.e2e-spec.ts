import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLAIM_LEASE_SECONDS } from '#libs/domain/payments';

/**
 * The chaos soak's short version (issue 26): `test/soak/run.mjs` as a child process, as `npm run soak`
 * runs it, for 45 s of load with one of each chaos action. Its own Redis, Postgres and processes, so it
 * touches nothing shared. A failure shows the soak's table, the ids it names and every process's last logs.
 */
const SOAK = fileURLToPath(new URL('./soak/run.mjs', import.meta.url));
/**
 * Start-up (~25 s), 45 s of load, at most 60 s to settle, the checks and the stops, with room to spare;
 * and, when a payment's claimer died mid-way, the claim's lease (CLAIM_LEASE_SECONDS) to wait out.
 */
const SOAK_TEST_TIMEOUT_MS = 240_000 + (CLAIM_LEASE_SECONDS + 30) * 1000;

function runSoak(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SOAK, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('chaos soak (short)', () => {
  it(
    'keeps every invariant through a worker SIGKILL, Redis lost, Postgres and an api restarted, under faults',
    async () => {
      const { code, output } = await runSoak(['--minutes', '0.75', '--seed', '26', '--settle-seconds', '60']);
      // The whole output on failure: the table, what broke and where, and the processes' last log lines.
      expect(code, output).toBe(0);
      expect(output).toContain('SOAK PASSED');
    },
    SOAK_TEST_TIMEOUT_MS,
  );
});
