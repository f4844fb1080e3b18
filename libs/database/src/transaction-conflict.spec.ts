import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PrismaClient } from './generated/client.js';
import { isTransactionConflict } from './transaction-conflict.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });

afterAll(async () => {
  await prisma.$disconnect();
  await pool.end();
});

describe('isTransactionConflict', () => {
  it('knows a deadlock met by a raw statement in an interactive transaction', async () => {
    const [first, second] = [Math.floor(Math.random() * 1e12), Math.floor(Math.random() * 1e12) + 1e12];
    // Each transaction takes one lock, then waits (without polling) until the other has taken its own
    // before asking for the other's: a circle Postgres must break by failing one of them.
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
    const outcomes = await Promise.allSettled([crossing(first, second), crossing(second, first)]);
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
