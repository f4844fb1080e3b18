/**
 * The bench's Postgres CPU and page faults (test/bench/cpu.mjs, serverCpuSeconds, serverMinorFaults): one
 * server's own processes, those that ended included. Issue 82: summing every `postgres` process on the machine counted other servers' and
 * lost every backend that ended between two readings, so the dispatcher's Postgres CPU read negative.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuMicros, minorFaults, serverCpuSeconds, serverMinorFaults, TICK_MICROS } from './bench/cpu.mjs';
import { eventually, WAIT } from './kit/index.js';
import { type PrivatePostgres, startPrivatePostgres } from './kit/private-services.mjs';

/** A query that keeps one backend busy for a few hundred ms of CPU. */
const BUSY = 'SELECT count(*) FROM generate_series(1, 4000000)';

const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);

describe('Postgres CPU and page faults in the bench', () => {
  let server: PrivatePostgres;

  beforeAll(async () => {
    server = await startPrivatePostgres();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  it('counts a backend that ended between two readings', async () => {
    const postmaster = server.postmasterPid();
    const before = serverCpuSeconds(postmaster);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0].pid;
    await client.query(BUSY);
    const spent = cpuMicros(backend) / 1e6;
    await client.end();
    await eventually(
      'the backend ended and reaped by its postmaster',
      () => (childrenOf(postmaster).includes(backend) ? undefined : true),
      WAIT.step,
    );
    const after = serverCpuSeconds(postmaster);
    expect(spent).toBeGreaterThan(0.05);
    // The server's reading is in clock ticks (a reaped child's are), the backend's to the nanosecond: the
    // kernel rounds a process's time down to its last whole tick.
    expect(Math.round((after - before) * 1e6)).toBeGreaterThanOrEqual(Math.round(spent * 1e6 - TICK_MICROS));
  });

  it('counts the page faults of a backend that ended between two readings', async () => {
    const postmaster = server.postmasterPid();
    const before = serverMinorFaults(postmaster);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0].pid;
    // A 64 MB value: memory the backend maps afresh and touches, a fault a page.
    await client.query(`SELECT length(repeat('x', 64 << 20))`);
    const taken = minorFaults(backend);
    await client.end();
    await eventually(
      'the backend ended and reaped by its postmaster',
      () => (childrenOf(postmaster).includes(backend) ? undefined : true),
      WAIT.step,
    );
    expect(taken).toBeGreaterThan((64 << 20) / 4096);
    expect(serverMinorFaults(postmaster) - before).toBeGreaterThanOrEqual(taken);
  });

  it("leaves out another server's backends", async () => {
    // The machine's shared server (the tests' database) works while this one idles.
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      const { rows } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const otherBackend = rows[0].pid;
      const postmaster = server.postmasterPid();
      const before = serverCpuSeconds(postmaster);
      const otherBefore = cpuMicros(otherBackend);
      await other.query(BUSY);
      const otherSpent = (cpuMicros(otherBackend) - otherBefore) / 1e6;
      const idle = serverCpuSeconds(postmaster) - before;
      expect(otherSpent).toBeGreaterThan(0.05);
      expect(idle).toBeLessThan(otherSpent / 2);
    } finally {
      await other.end();
    }
  });
});
