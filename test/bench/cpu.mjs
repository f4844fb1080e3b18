// CPU time as Linux keeps it (/proc): a process's, a thread's, a Postgres server's. What a step cost the machine,
// which a loaded machine's wall time hides and the load generator on the same cores does not blur.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** One clock tick of /proc's utime and stime, in µs. */
export const TICK_MICROS = 1e6 / CLOCK_TICKS_PER_S;

/** The kernel keeps each thread's run time in nanoseconds (CONFIG_SCHEDSTATS). */
const SCHEDSTAT = existsSync('/proc/self/schedstat');

/** A thread's CPU time in µs, to the nanosecond where the kernel keeps it, else in clock ticks. */
function threadMicros(pid, tid) {
  if (!SCHEDSTAT) return ticksMicros(`/proc/${pid}/task/${tid}/stat`);
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e3;
}

/**
 * The fields of a /proc stat file after the command's name (which may hold spaces), from the state (field
 * 3, at 0): ppid at 1, utime 11, stime 12, cutime 13, cstime 14, the times in clock ticks.
 */
function statFields(file) {
  const stat = readFileSync(file, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of a /proc stat file, in µs: whole clock ticks. */
function ticksMicros(file) {
  const fields = statFields(file);
  return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
}

/**
 * CPU time (user + system) a process has used, or one of its threads (`tid`), in µs (Linux /proc): the
 * server's own cost of a request, which the load generator on the same cores does not blur as it does
 * req/s. Whole-process figures include the GC's helper threads; a thread's do not. Read from the
 * scheduler's nanosecond count of each thread where the kernel keeps one: in clock ticks (10 ms), a paced
 * round of 500 requests was a figure to within 20 µs a request, a sixth of the minimal app's (issue 82).
 * A thread that ended took its time with it; the apps' threads (V8's helpers, libuv's pool) last as long
 * as their process.
 */
export function cpuMicros(pid, tid) {
  if (tid) return threadMicros(pid, tid);
  if (!SCHEDSTAT) return ticksMicros(`/proc/${pid}/stat`);
  let total = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += threadMicros(pid, thread);
    } catch {
      // Ended between the listing and the read.
    }
  }
  return total;
}

/** A process's own CPU (utime + stime) and its reaped children's (cutime + cstime), in µs. */
function ownAndReaped(pid) {
  const fields = statFields(`/proc/${pid}/stat`);
  const us = (i) => Number(fields[i]) * TICK_MICROS;
  return { own: us(11) + us(12), reaped: us(13) + us(14) };
}

/** A process's own minor page faults (minflt) and its reaped children's (cminflt). */
function faultsOwnAndReaped(pid) {
  const fields = statFields(`/proc/${pid}/stat`);
  return { own: Number(fields[7]), reaped: Number(fields[8]) };
}

/**
 * The minor page faults a process has taken so far (all its threads): each first touch of a page of
 * memory, as a fresh allocation makes them. Unlike CPU time a count, the same on a busy machine as on a
 * quiet one; what each costs depends on the machine (a loop touching fresh pages: 12-15 µs a fault on the
 * bench's virtual machine of 1 December, ~0.1-0.3 µs on bare metal).
 */
export function minorFaults(pid) {
  return faultsOwnAndReaped(pid).own;
}

/** The pids whose parent is `pid`: the kernel's own list where it keeps one, else a walk of /proc. */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    const children = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (Number(statFields(`/proc/${entry}/stat`)[1]) === pid) children.push(Number(entry));
      } catch {
        // Ended between the listing and the read.
      }
    }
    return children;
  }
}

/**
 * The CPU seconds one Postgres server has used so far: its postmaster's own, every child it reaped (a
 * backend that ended: the kernel adds its time to the postmaster's cutime and cstime when the postmaster
 * waits for it) and every child still running (backends, checkpointer, autovacuum, walwriter). Read before
 * and after a step, what the step cost that server, ended connections included; another server's processes
 * are never counted. A child reaped while the children are read would be counted twice or not at all: the
 * reading is taken again until the reaped total held still across it.
 */
export function serverCpuSeconds(postmasterPid) {
  return serverTotal(postmasterPid, ownAndReaped, (child) => ticksMicros(`/proc/${child}/stat`)) / 1e6;
}

/** The minor page faults one Postgres server has taken so far, counted as serverCpuSeconds counts CPU. */
export function serverMinorFaults(postmasterPid) {
  return serverTotal(postmasterPid, faultsOwnAndReaped, minorFaults);
}

/** A server's total of one /proc figure: the postmaster's own, its reaped children's, its live children's. */
function serverTotal(postmasterPid, ownAndReapedOf, liveOf) {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const before = ownAndReapedOf(postmasterPid);
    let live = 0;
    for (const child of childrenOf(postmasterPid)) {
      try {
        // As the kernel adds a reaped child's (CPU in clock ticks): a backend counts the same before and after it ends.
        live += liveOf(child);
      } catch {
        // Ended and reaped since the listing: the reaped total moved, and the reading is taken again.
      }
    }
    const after = ownAndReapedOf(postmasterPid);
    if (after.reaped === before.reaped) return after.own + after.reaped + live;
  }
  throw new Error(`Postgres (postmaster ${postmasterPid}): its children kept ending while they were read`);
}
