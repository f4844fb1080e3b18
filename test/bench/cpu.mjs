// CPU time as Linux keeps it (/proc): a process's, a thread's, Postgres's. What a step cost the machine,
// which a loaded machine's wall time hides and the load generator on the same cores does not blur.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * CPU time (user + system) a process has used, or one of its threads (`tid`), in µs (Linux /proc): the
 * server's own cost of a request, which the load generator on the same cores does not blur as it does
 * req/s. Whole-process figures include the GC's helper threads; a thread's do not.
 */
export function cpuMicros(pid, tid) {
  const stat = readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8');
  // Fields after the command's name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS_PER_S;
}

/**
 * The CPU seconds Postgres's processes have used so far (the server's and every backend's, from /proc):
 * read before and after a step, what the step cost the database. A backend that ended between two
 * readings takes its time with it.
 */
export function postgresCpuSeconds() {
  const pids = spawnSync('pgrep', ['-x', 'postgres'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  let micros = 0;
  for (const pid of pids) {
    try {
      micros += cpuMicros(Number(pid));
    } catch {
      // Ended between the listing and the read.
    }
  }
  return micros / 1e6;
}
