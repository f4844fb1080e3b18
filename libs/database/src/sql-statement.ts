import type pg from 'pg';
import type { Prisma } from './generated/client.js';

/*
 * Hand-written SQL, declared where test/sql-statements.e2e-spec.ts can find it: every statement a
 * repository sends is a module-level constant of an exported object (`ACCOUNT_SQL.findOne`), its text
 * beside a description of the row it yields that TypeScript ties to the row's type. The test prepares each
 * one against a freshly migrated database and holds its result columns to that description, so a renamed
 * column fails the statement's own test instead of whichever test happens to reach it.
 */

/**
 * What node-postgres hands back for a column (its default type parsers): `string` for text, uuid and enums,
 * and for `bigint` and `numeric` too (exact, never a float); `number` for int2, int4 and the floats; `Date`
 * for timestamps and dates; `json` for json and jsonb, parsed; arrays of text or numbers as arrays.
 */
export type ValueKind = 'string' | 'number' | 'boolean' | 'Date' | 'json' | 'string[]' | 'number[]';

/** The kind a field of a row type comes as; `unknown`, and any object, is JSON. Nullability is not checked. */
export type KindOf<T> = unknown extends T
  ? 'json'
  : [NonNullable<T>] extends [Date]
    ? 'Date'
    : [NonNullable<T>] extends [string]
      ? 'string'
      : [NonNullable<T>] extends [number]
        ? 'number'
        : [NonNullable<T>] extends [boolean]
          ? 'boolean'
          : [NonNullable<T>] extends [readonly string[]]
            ? 'string[]'
            : [NonNullable<T>] extends [readonly number[]]
              ? 'number[]'
              : 'json';

/**
 * A row type written out for the schema check: every field of `R`, no other, each with its kind. The type
 * makes it exactly `R`'s (a field added to the interface and not here, or of another kind, does not compile).
 */
export type RowShape<R> = { readonly [K in keyof R]-?: KindOf<R[K]> };

/** The type of a statement's rows, carried by the statement: type-only, never set. */
declare const ROW: unique symbol;

/** A parameterised statement; a `name` makes Postgres parse and plan it once per connection. */
export interface SqlStatement<R extends object = object> {
  name?: string;
  text: string;
  values: unknown[];
  readonly [ROW]?: R;
}

/** The rows of a statement that declares none: nothing to read but how many came back. */
export type NoRow = Record<never, never>;

/**
 * A declared statement: spread it into the call with its values (`{ ...ACCOUNT_SQL.findOne, values }`),
 * and `DatabasePool.rows` (or {@link queryOn}) types the rows as the statement declares them.
 */
export interface Statement<R extends object = NoRow> {
  readonly name?: string;
  readonly text: string;
  /** The row's columns, checked against the schema; absent when the caller reads no column. Not enumerable. */
  readonly row?: RowShape<R>;
  readonly [ROW]?: R;
}

/** A statement built with Prisma's `sql` tag, for a Prisma transaction's `$executeRaw` / `$queryRaw`. */
export type SqlTemplate<A extends unknown[]> = ((...args: A) => Prisma.Sql) & {
  readonly statement: { readonly label: string };
};

const DECLARED = Symbol.for('bff.sql-statement');

/**
 * Declares a statement: `name` (undefined: sent unnamed, planned each time), its text, and the row it
 * yields (`sqlStatement<Row>('users.list', LIST, { id: 'string', … })`). Only `name` and `text` are
 * enumerable, so a spread of it is a plain pg query config.
 */
export function sqlStatement<R extends object = NoRow>(
  name: string | undefined,
  text: string,
  row?: RowShape<R>,
): Statement<R> {
  const statement = name === undefined ? { text } : { name, text };
  Object.defineProperty(statement, DECLARED, { value: true });
  if (row) Object.defineProperty(statement, 'row', { value: row });
  return statement;
}

/**
 * Declares a statement written with Prisma's `sql` tag, its values in place: a function of them. The check
 * builds it with stand-ins for its text (`$1`, `$2`, … where the values go).
 */
export function sqlTemplate<A extends unknown[]>(
  label: string,
  build: (...args: A) => Prisma.Sql,
): SqlTemplate<A> {
  Object.defineProperty(build, DECLARED, { value: true });
  return Object.defineProperty(build, 'statement', { value: { label } }) as SqlTemplate<A>;
}

export const isSqlStatement = (value: unknown): value is Statement<object> =>
  typeof value === 'object' && value !== null && DECLARED in value;

export const isSqlTemplate = (value: unknown): value is SqlTemplate<unknown[]> =>
  typeof value === 'function' && DECLARED in value;

/** A statement on one connection (a transaction's), its rows typed as the statement declares them. */
export const queryOn = <R extends object>(
  db: pg.ClientBase,
  statement: SqlStatement<R>,
): Promise<pg.QueryResult<R>> => db.query<R>(statement);
