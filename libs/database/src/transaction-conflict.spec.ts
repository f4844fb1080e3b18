import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PrismaClient } from './generated/client.js';
import { CONFLICT_TRIES, isTransactionConflict, retryingConflicts } from './transaction-conflict.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });

afterAll(async () => {
  await prisma.$disconnect();
  await pool.end();
});

/**
 * Two transactions that deadlock: each takes one advisory lock, waits (without polling) until the other has
 * taken its own, then asks for the other's: a circle Postgres must break by failing one of them.
 */
function deadlockingPair() {
  const [first, second] = [Math.floor(Math.random() * 1e12), Math.floor(Math.random() * 1e12) + 1e12];
  let arrived = 0;
  let release!: () => void;
  const bothHold = new Promise<void>((resolve) => (release = resolve));
  const crossing = (a: number, b: number) =>
    prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${a}::bigint)`;
      if (++arrived === 2) release();
      await bothHold;
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${b}::bigint)`;
    });
  return [() => crossing(first, second), () => crossing(second, first)] as const;
}

describe('isTransactionConflict', () => {
  it('knows a deadlock met by a raw statement in an interactive transaction', async () => {
    const [one, other] = deadlockingPair();
    const outcomes = await Promise.allSettled([one(), other()]);
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    // Postgres breaks the circle by failing the transaction whose wait closed it.
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.some(isTransactionConflict)).toBe(true);
  });

  it('is false for other errors', async () => {
    const error = await prisma.$executeRaw`SELECT 1 / 0`.catch((e: unknown) => e);
    expect(isTransactionConflict(error)).toBe(false);
    expect(isTransactionConflict(new Error('deadlock detected'))).toBe(false);
    expect(isTransactionConflict(undefined)).toBe(false);
  });
});

describe('retryingConflicts', () => {
  it('makes again the one of two deadlocked transactions Postgres failed: both end done', async () => {
    const [one, other] = deadlockingPair();
    let runs = 0;
    const counted = (transaction: () => Promise<void>) => () => ((runs += 1), transaction());
    await expect(
      Promise.all([retryingConflicts(counted(one)), retryingConflicts(counted(other))]),
    ).resolves.toHaveLength(2);
    expect(runs).toBeGreaterThanOrEqual(3);
  });

  it('throws any other failure at once, and a conflict once it has run CONFLICT_TRIES times', async () => {
    let runs = 0;
    const other = new Error('not a conflict');
    await expect(retryingConflicts(() => ((runs += 1), Promise.reject(other)))).rejects.toBe(other);
    expect(runs).toBe(1);

    const [one, twin] = deadlockingPair();
    const conflict = (await Promise.allSettled([one(), twin()])).flatMap((o) =>
      o.status === 'rejected' ? [o.reason as unknown] : [],
    )[0];
    expect(isTransactionConflict(conflict)).toBe(true);
    runs = 0;
    await expect(retryingConflicts(() => ((runs += 1), Promise.reject(conflict as Error)))).rejects.toBe(
      conflict,
    );
    expect(runs).toBe(CONFLICT_TRIES);
  });
});
