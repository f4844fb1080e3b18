/**
 * `npm run bench` at a small size (`--smoke`): every scenario runs once, on data a hundredth of its real
 * size or less, so a statement, route or option that a change broke fails the build here and not, weeks
 * later, the bench (issue 82: the change feed's page took a fifth value on 28 November and the bench,
 * binding four, stopped there until someone ran it). No figure is asserted: the bench measures speed, the
 * tests hold it to running. The bench starts its own Postgres; this file gives it a Redis and ports of its
 * own, so it shares nothing with the files running beside it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from './bench/scenario-names.mjs';
import { freePort } from './kit/index.js';
import { type PrivateRedis, startPrivateRedis } from './kit/private-services.mjs';

const ROOT = new URL('../', import.meta.url);
/** A bound against a hang, not a speed check: the smoke run takes minutes on a loaded machine. */
const SMOKE_RUN_MS = 900_000;

interface BenchSummary {
  ok: boolean;
  error?: string;
  scenarios: { scenario: string }[];
  failed: { scenario: string; error: string }[];
}

/** Runs the bench to its end in a process group of its own: its output, and its group ended on a hang. */
function runBench(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['test/bench/run.mjs', ...args], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      // The bench and every app it started: SIGTERM lets it stop its private Postgres on the way out.
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
      reject(new Error(`the smoke bench still ran after ${SMOKE_RUN_MS / 1000} s:\n${output.slice(-4000)}`));
    }, SMOKE_RUN_MS - 10_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm run bench --smoke: every scenario of the bench, small', () => {
  let redis: PrivateRedis | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  let summary: BenchSummary;
  let output = '';

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const ports = {
      BENCH_API_PORT: await freePort(),
      BENCH_API_LIVE_PORT: await freePort(),
      BENCH_SANDBOX_PORT: await freePort(),
      BENCH_NEST_PORT: await freePort(),
      BENCH_NEST_PG_PORT: await freePort(),
      BENCH_TRACED_API_PORT: await freePort(),
      BENCH_SAMPLED_API_PORT: await freePort(),
    };
    const out = join(dir, 'bench-results.json');
    const run = await runBench(['--smoke', '--out', out], {
      ...process.env,
      REDIS_URL: redis.url,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
    });
    output = run.output;
    summary = JSON.parse(readFileSync(out, 'utf8')) as BenchSummary;
  }, SMOKE_RUN_MS);

  afterAll(async () => {
    await redis?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(SCENARIOS)('%s runs to its end', (name) => {
    expect(summary.error, output.slice(-4000)).toBeUndefined();
    const failed = summary.failed.find((f) => f.scenario === name);
    expect(failed?.error, `${name} failed`).toBeUndefined();
    expect(summary.scenarios.map((s) => s.scenario)).toContain(name);
  });

  it('prints its report of every scenario and says the run passed', () => {
    expect(summary.ok).toBe(true);
    for (const name of SCENARIOS) expect(output).not.toContain(`## ${name}: FAILED`);
    expect(output).toContain('Benchmarks — ');
  });
});
