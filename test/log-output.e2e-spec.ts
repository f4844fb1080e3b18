import { type ChildProcess, spawn } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty, eventually, propertyTimeout, WAIT } from './kit/index.js';

/** The logger as the apps make it (from dist/: npm test builds it), writing to a real stdout pipe. */
const LOGGER = new URL('../dist/libs/observability/src/logger.js', import.meta.url).href;

interface Burst {
  lines: number;
  /** Characters of padding in each line: lines of a burst together pass a batch or not. */
  size: number;
  pauseMs: number;
}

type Ending = 'exit' | 'natural' | 'uncaught' | 'never';

/** Logs the bursts (each line numbered), then ends as told: `never` keeps the process alive. */
const SCRIPT = `
const { createLogger } = await import(process.env.LOGGER);
const log = createLogger({ level: 'info', app: 'log-output' });
const { bursts, ending } = JSON.parse(process.env.PLAN);
let n = 0;
for (const { lines, size, pauseMs } of bursts) {
  for (let i = 0; i < lines; i++) log.info({ n: n++, pad: 'x'.repeat(size) }, 'line');
  if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
}
if (ending === 'exit') process.exit(0);
if (ending === 'uncaught') throw new Error('the end');
if (ending === 'never') setInterval(() => {}, 1000);
`;

function run(
  bursts: Burst[],
  ending: Ending,
): { child: ChildProcess; stdout: () => string; ended: Promise<number | null> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    env: { ...process.env, LOGGER, PLAN: JSON.stringify({ bursts, ending }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const ended = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, ended };
}

const numbered = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { n: number; pad: string; msg: string });

/**
 * stdout is written a batch of lines at a time (libs/observability/src/log-destination.ts): whatever the
 * lines' sizes and pauses, and however the process ends, every line reaches stdout once, whole and in order.
 */
describe('logging: lines on stdout', () => {
  it(
    'every line logged is written once, whole and in order, however the process ends',
    async () => {
      const burst = fc.record({
        lines: fc.integer({ min: 0, max: 400 }),
        size: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1_000, max: 70_000 })),
        pauseMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 120 })),
      });
      await assertProperty(
        fc.asyncProperty(
          fc.array(burst, { minLength: 1, maxLength: 4 }),
          fc.constantFrom<Ending>('exit', 'natural', 'uncaught'),
          async (bursts, ending) => {
            const process = run(bursts, ending);
            await process.ended;
            const lines = numbered(process.stdout());
            const sizes = bursts.flatMap(({ lines: count, size }) => Array<number>(count).fill(size));
            expect(lines.map((line) => line.n)).toEqual(sizes.map((_, n) => n));
            expect(lines.map((line) => line.pad.length)).toEqual(sizes);
          },
        ),
        12,
      );
    },
    propertyTimeout(120_000),
  );

  it('goes on, and ends as it would, when whoever read its stdout goes away', async () => {
    const bursts = Array.from({ length: 20 }, () => ({ lines: 50, size: 200, pauseMs: 20 }));
    const { child, ended } = run(bursts, 'natural');
    child.stdout!.once('data', () => child.stdout!.destroy());
    expect(await ended).toBe(0);
  });

  it('writes a lone line while the process goes on, without waiting for a batch to fill', async () => {
    const { child, stdout, ended } = run([{ lines: 1, size: 10, pauseMs: 0 }], 'never');
    try {
      await eventually(
        'the one line on stdout',
        () => (numbered(stdout()).length === 1 ? true : undefined),
        WAIT.step,
      );
    } finally {
      child.kill('SIGKILL');
      await ended;
    }
  });
});
