import { describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { dependencyFailureOf } from '#libs/errors';
import { useStack } from './kit/index.js';

/**
 * Prisma ends an interactive transaction that outlives its timeout (5 s by default) with P2028. On a
 * loaded machine or during a failover that is the database too slow to answer, as a pool timeout is: an
 * outage the caller may retry (503 with Retry-After), never a 500. Here the app's own client, with a
 * timeout of 100 ms against a statement of 400.
 */
describe('a transaction the database was too slow to finish in time', () => {
  const stack = useStack();

  it('is Postgres unavailable, not a fault of the request', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const error = await prisma
      .$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_sleep(0.4)`;
          await tx.$executeRaw`SELECT 1`;
        },
        { timeout: 100 },
      )
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('P2028');
    expect(dependencyFailureOf(error)).toBe('postgres');
  });
});
