import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

let collectGarbage: NodeJS.GCFunction | undefined;
let sizesBeforeStart: MemorySizes | undefined;

/**
 * A full collection that goes on until nothing more frees and gives the emptied pages back: what V8's memory
 * reducer does in small steps over tens of seconds (off: `--no-memory-reducer` in scripts/app-runtime.mjs).
 */
const collectAll = (gc: NodeJS.GCFunction) => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });

/**
 * V8 settings of the long-running apps (api, worker, sandbox), set first thing in `main`, before anything is
 * compiled.
 *
 * - WebAssembly stays at V8's baseline tier (Liftoff). The only WebAssembly here is Prisma's query
 *   compiler, which the hot paths do not use (they are SQL on the pool). Its optimised tier costs tens of
 *   MiB of resident memory per process for a small gain on a Prisma query.
 * - `leanHeap`: the old generation grows by a quarter past what survived the last full collection, not
 *   by V8's default of up to four times: the worker's and the sandbox's peak RSS fall well below their
 *   targets at the same throughput (re-measure: `npm run bench -- --only sync,sandbox-rotation`). The
 *   api keeps V8's default: its targets are requests
 *   per second, and more frequent full collections take CPU from them on two shared cores.
 * - A full collection can be asked for (`trimHeapWhenIdle`): it stands in for V8's memory reducer, which the
 *   apps run without (scripts/app-runtime.mjs).
 */
export function applyRuntimeFlags(options: { leanHeap: boolean }): void {
  v8.setFlagsFromString('--liftoff-only');
  if (options.leanHeap) v8.setFlagsFromString('--heap-growing-percent=25');
  v8.setFlagsFromString('--expose-gc');
  // The flag puts `gc` on contexts made from now on: one made here hands it over.
  collectGarbage = runInNewContext('gc') as NodeJS.GCFunction;
  sizesBeforeStart = sizesNow();
}

/**
 * Busy below this share of the interval counts as idle. An idle api is near 0.4%; at 5%, an interval that
 * was mostly quiet but ended in a light load (a few hundred small reads a second) counted as idle, and the
 * trim's 250 ms collection landed in the load. A share alone cannot tell a light load from none: an api
 * reading a stored page at 250 req/s in bursts of 2.3 s every 9 s was under 1% busy in some intervals,
 * trimmed in the middle of the load, and its next reads cost three to four times the CPU. A process that
 * counts its work (`trimHeapWhenIdle`'s `workDone`) is idle only in an interval that did none.
 */
const IDLE_UTILISATION = 0.01;
/**
 * How long a process must have been idle before a trim. A trim costs the next load: V8 drops the
 * optimised code of the hot path when it collects the objects that code was made for (`--trace-deopt`:
 * "embedded weak objects cleared"), and the api compiled about 85 functions again over its next ~1,500
 * reads, which also faulted in again, 6 pages a read at first, what the trim gave back. A stored page at
 * 250 req/s after 30 s idle cost 419, 292, 255 µs per read over its first three rounds of 750, against
 * 196, 192, 181 untrimmed (issue 82). Any full collection after idle drops the code: a regular one too
 * (357, 256, 215 µs, and no memory given back); `--no-flush-bytecode` and `--retain-maps-for-n-gc=16` did
 * not keep it. Its young generation starts again from 16 MiB (scripts/app-runtime.mjs); from V8's
 * least, 1 MiB, the reads also ran ten times the scavenges.
 * Bursts a few seconds apart (a page polled, a bench's rounds) keep a process warm; one idle this long
 * gives its memory back, still within 30 s of its last request.
 */
export const QUIET_BEFORE_TRIM_MS = 15_000;
/** Heap or RSS grown by at least this much since the last trim is worth one. */
const GROWTH_BYTES = 32 * 1024 * 1024;

/** V8's heap and the process's RSS, in bytes. */
export interface MemorySizes {
  heapBytes: number;
  rssBytes: number;
}

export interface TrimState {
  /** The sizes after the last trim (or at start), each lowered when it is seen lower since. */
  baseline: MemorySizes;
}

/**
 * Whether to collect now: the process has been idle for QUIET_BEFORE_TRIM_MS (`quietMs`: its idle
 * intervals in a row) and its heap or its RSS grew since the last trim. RSS too: buffers and strings the
 * heap only points at (200 KB upstream pages and answers) are given back by the collection that drops
 * their handles, while the heap itself may have grown little.
 */
export function shouldTrim(state: TrimState, quietMs: number, now: MemorySizes): boolean {
  return (
    quietMs >= QUIET_BEFORE_TRIM_MS &&
    (now.heapBytes - state.baseline.heapBytes >= GROWTH_BYTES ||
      now.rssBytes - state.baseline.rssBytes >= GROWTH_BYTES)
  );
}

/**
 * How long the process has been idle after an interval of `intervalMs` at `utilisation` in which it did
 * work (`worked`, when it counts its work) or none: none if busy.
 */
export const quietAfter = (
  quietMs: number,
  utilisation: number,
  intervalMs: number,
  worked = false,
): number => (!worked && utilisation < IDLE_UTILISATION ? quietMs + intervalMs : 0);

const sizesNow = (): MemorySizes => {
  const usage = process.memoryUsage();
  return { heapBytes: usage.heapTotal, rssBytes: usage.rss };
};

/**
 * After start and after a burst, V8 keeps the heap it grew (and the garbage in it) until something
 * allocates again, so an idle process would hold its peak memory. Every `everyMs`, a process idle for
 * every interval of the last QUIET_BEFORE_TRIM_MS whose heap or RSS grew by 32 MiB since the last trim
 * runs one full collection, which gives the pages back.
 * Never under load: a busy process collects as it goes. `workDone`: a count of the work the process has
 * done so far (the api's requests answered), which any work in an interval moves on. Needs
 * `applyRuntimeFlags()` first; otherwise a no-op. Answers a stop function.
 */
export function trimHeapWhenIdle(options: { everyMs?: number; workDone?: () => number } = {}): () => void {
  const { everyMs = 5_000, workDone } = options;
  const gc = collectGarbage;
  if (!gc) return () => undefined;
  // From the sizes before the app was built: what starting left (about 100 MiB of the api's) goes once
  // the process has been quiet for QUIET_BEFORE_TRIM_MS.
  const state: TrimState = { baseline: sizesBeforeStart ?? sizesNow() };
  let last = performance.eventLoopUtilization();
  let quietMs = 0;
  let lastWork = workDone?.();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    const work = workDone?.();
    quietMs = quietAfter(quietMs, utilization, everyMs, work !== lastWork);
    lastWork = work;
    const sizes = sizesNow();
    if (shouldTrim(state, quietMs, sizes)) {
      collectAll(gc);
      state.baseline = sizesNow();
    } else {
      state.baseline = {
        heapBytes: Math.min(state.baseline.heapBytes, sizes.heapBytes),
        rssBytes: Math.min(state.baseline.rssBytes, sizes.rssBytes),
      };
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
