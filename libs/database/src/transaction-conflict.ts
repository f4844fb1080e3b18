import { Prisma } from './generated/client.js';

/**
 * The transaction lost to another writer (a deadlock, 40P01, or a serialization failure, 40001) and can
 * simply be run again. Prisma reports it as P2034 from its own queries, but as P2010 ("raw query failed")
 * from `$executeRaw`/`$queryRaw`, with the driver adapter's verdict in `meta.driverAdapterError.cause`.
 */
export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (error.code === 'P2034') return true;
  if (error.code !== 'P2010') return false;
  const cause = (
    error.meta?.driverAdapterError as { cause?: { kind?: unknown; originalCode?: unknown } } | undefined
  )?.cause;
  return (
    cause?.kind === 'TransactionWriteConflict' ||
    cause?.originalCode === '40P01' ||
    cause?.originalCode === '40001'
  );
}

/** How many times in all a transaction that keeps losing to other writers is run. */
export const CONFLICT_TRIES = 3;

/**
 * Runs `transaction` and runs it again when it lost to another writer (isTransactionConflict), up to
 * CONFLICT_TRIES times in all; any other failure, or the last conflict, is thrown. For a whole transaction
 * that is conditional or idempotent: a lost one wrote nothing, so making it again is safe.
 */
export async function retryingConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await transaction();
    } catch (error) {
      if (!isTransactionConflict(error) || tries >= CONFLICT_TRIES) throw error;
    }
  }
}

/**
 * The SQLSTATE Postgres ended a raw query (`$executeRaw`, `$queryRaw`) with: Prisma reports any such
 * failure as P2010, with Postgres's own code in the driver adapter's cause. Undefined for anything else.
 */
export function rawQueryState(error: unknown): string | undefined {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2010') return undefined;
  const cause = (error.meta?.driverAdapterError as { cause?: { originalCode?: unknown } } | undefined)?.cause;
  return typeof cause?.originalCode === 'string' ? cause.originalCode : undefined;
}
