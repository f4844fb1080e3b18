// Types of cpu.mjs for the TypeScript tests.

/** One clock tick of /proc's utime and stime, in µs. */
export const TICK_MICROS: number;

/** CPU time (user + system) a process has used, or one of its threads, in µs. */
export function cpuMicros(pid: number, tid?: number): number;

/** The CPU seconds one Postgres server (its postmaster, reaped and live children) has used so far. */
export function serverCpuSeconds(postmasterPid: number): number;

/** The minor page faults a process has taken so far. */
export function minorFaults(pid: number): number;

/** The minor page faults one Postgres server (its postmaster, reaped and live children) has taken so far. */
export function serverMinorFaults(postmasterPid: number): number;
