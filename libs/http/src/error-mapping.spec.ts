import fc from 'fast-check';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors/index.js';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError, DomainError, ErrorCode } from '#libs/errors';
import { assertProperty } from '#libs/testing';
import { mapError } from './error-mapping.js';

/** A pg server error as the driver builds it (a restart's 57P01, too many connections...). */
function pgError(code: string, message: string) {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  return error;
}

/** A socket error as Node raises it. */
function socketError(code: string) {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });
}

/** Prisma's known request error through the pg driver adapter, by the shape it has when Postgres is gone. */
function prismaUnreachable() {
  return Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), {
    name: 'PrismaClientKnownRequestError',
    code: 'P1001',
    meta: { driverAdapterError: { message: 'DatabaseNotReachable' } },
  });
}

describe('mapError: our own infrastructure down is 503 SERVICE_UNAVAILABLE, a bug stays 500', () => {
  const outages: [string, unknown, string][] = [
    ['ioredis gave up on a command', new MaxRetriesPerRequestError(2), 'redis'],
    ['ioredis connection closed', new Error('Connection is closed.'), 'redis'],
    [
      'a Redis cluster with no node answering',
      Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' }),
      'redis',
    ],
    [
      'a Redis cluster failing over (ioredis gave up on the slot)',
      new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down'),
      'redis',
    ],
    ['a Redis cluster down', new Error('CLUSTERDOWN The cluster is down'), 'redis'],
    ['an enqueue past its deadline', new DependencyUnavailableError('redis', 'enqueue: late'), 'redis'],
    [
      'Postgres restarting (57P01)',
      pgError('57P01', 'terminating connection due to administrator command'),
      'postgres',
    ],
    ['too many connections', pgError('53300', 'sorry, too many clients already'), 'postgres'],
    ['connection refused', socketError('ECONNREFUSED'), 'postgres'],
    ['pg lost its connection', new Error('Connection terminated unexpectedly'), 'postgres'],
    ['the pool waited too long', new Error('timeout exceeded when trying to connect'), 'postgres'],
    ['Prisma cannot reach the database', prismaUnreachable(), 'postgres'],
    [
      'Prisma meets Postgres shutting down (57P03, only in the adapter error)',
      Object.assign(
        new Error('Database error. Code: `57P03`. Message: `the database system is shutting down`'),
        {
          name: 'PrismaClientKnownRequestError',
          code: 'P2010',
          meta: {
            driverAdapterError: {
              message: 'the database system is shutting down',
              cause: { kind: 'postgres', code: '57P03', originalCode: '57P03' },
            },
          },
        },
      ),
      'postgres',
    ],
    ['wrapped in a cause', new Error('sync failed', { cause: pgError('57P01', 'terminating') }), 'postgres'],
  ];

  it.each(outages)('%s', (_what, error, dependency) => {
    const mapped = mapError(error, 'trace-1');
    expect(mapped.status).toBe(503);
    expect(mapped.body.error.code).toBe(ErrorCode.SERVICE_UNAVAILABLE);
    expect(mapped.headers['retry-after']).toBe('5');
    expect(mapped.body.error.retryAfterSeconds).toBe(5);
    expect(mapped.outage).toBe(dependency);
    expect(mapped.unexpected).toBe(false);
  });

  const bugs: [string, unknown][] = [
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a constraint violation', pgError('23502', 'null value in column "id" violates not-null constraint')],
    ['a syntax error in our SQL', pgError('42601', 'syntax error at or near "SELEC"')],
    [
      'Prisma validation',
      Object.assign(new Error('Invalid invocation'), { name: 'PrismaClientValidationError' }),
    ],
  ];

  it.each(bugs)('%s stays INTERNAL', (_what, error) => {
    const mapped = mapError(error, 'trace-1');
    expect(mapped.status).toBe(500);
    expect(mapped.outage).toBeUndefined();
  });

  it('maps every connection-class and shutdown-class SQLSTATE, raw or as Prisma wraps it, to the outage', async () => {
    const code = fc.oneof(
      fc.stringMatching(/^08[0-9A-Z]{3}$/),
      fc.constantFrom('57000', '57P01', '57P02', '57P03', '57P04', '57P05', '53300'),
    );
    const wrapped = fc.constantFrom(
      (c: string) => pgError(c, 'the database is away'),
      (c: string) =>
        Object.assign(new Error(`Database error. Code: \`${c}\``), {
          name: 'PrismaClientKnownRequestError',
          code: 'P2010',
          meta: {
            driverAdapterError: { message: 'away', cause: { kind: 'postgres', code: c, originalCode: c } },
          },
        }),
      (c: string) => new Error('a write failed', { cause: pgError(c, 'the database is away') }),
    );
    await assertProperty(
      fc.property(code, wrapped, (c, wrap) => {
        const mapped = mapError(wrap(c), 'trace-1');
        expect(mapped.status).toBe(503);
        expect(mapped.outage).toBe('postgres');
      }),
      200,
    );
    // A statement we cancelled (57014) is not an outage.
    expect(mapError(pgError('57014', 'canceling statement due to statement timeout'), 't').status).toBe(500);
  });

  it('an upstream outage keeps its own code', () => {
    const mapped = mapError(new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'upstream down'), 'trace-1');
    expect(mapped.body.error.code).toBe(ErrorCode.UPSTREAM_UNAVAILABLE);
    expect(mapped.outage).toBeUndefined();
  });
});
