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

/**
 * A column as a row declares it: its kind, with `?` when it may be null (`'string?'`), or `!` when its
 * table's column may hold null but this statement's never does (`WHERE next_sync_at <= $1`): the one case
 * the schema check cannot see for itself.
 */
export type ColumnKind = ValueKind | `${ValueKind}?` | `${ValueKind}!`;

/** The TypeScript type of each kind's values. */
interface KindTypes {
  string: string;
  number: number;
  boolean: boolean;
  Date: Date;
  json: unknown;
  'string[]': string[];
  'number[]': number[];
}

declare const NARROWED: unique symbol;

/** A column whose values are narrower than its kind (a status's union, a JSON document's shape). */
export type NarrowedColumn<T> = ColumnKind & { readonly [NARROWED]: T };

/** The column kind values of type `T` come as (`'json?'` for `Payee | null`); `unknown` and objects are JSON. */
export type ColumnKindOf<T> = unknown extends T
  ? 'json' | 'json?'
  : null extends T
    ? `${BaseKindOf<NonNullable<T>>}?`
    : BaseKindOf<T> | `${BaseKindOf<T>}!`;

type BaseKindOf<T> = unknown extends T
  ? 'json'
  : [T] extends [Date]
    ? 'Date'
    : [T] extends [string]
      ? 'string'
      : [T] extends [number]
        ? 'number'
        : [T] extends [boolean]
          ? 'boolean'
          : [T] extends [readonly string[]]
            ? 'string[]'
            : [T] extends [readonly number[]]
              ? 'number[]'
              : 'json';

/**
 * A column of kind `kind` whose values TypeScript knows more of than Postgres says: `column<PaymentKind>
 * ('string')`, `column<Payee | null>('json?')`. The kind must be the one values of `T` come as.
 */
export const column = <T>(kind: ColumnKindOf<T>) => kind as ColumnKindOf<T> & NarrowedColumn<T>;

/** A row as a statement declares it, once: every column it returns, by name, with its kind. */
export type RowShape = Readonly<Record<string, ColumnKind>>;

/** The row type a shape declares: each column's kind made its type, `?` made `| null`. */
export type RowOf<S extends RowShape> = {
  -readonly [K in keyof S]: S[K] extends { readonly [NARROWED]: infer T }
    ? T
    : S[K] extends `${infer B extends ValueKind}?`
      ? KindTypes[B] | null
      : S[K] extends `${infer B extends ValueKind}!`
        ? KindTypes[B]
        : KindTypes[S[K] & ValueKind];
};

/**
 * Declares a row shared by several statements (`const VIEW = row({ id: 'string', … })`, its type
 * `RowOf<typeof VIEW>`), its kinds kept as written.
 */
export const row = <const S extends RowShape>(shape: S): S => shape;

/** A shape's columns as the nullable side of an outer join gives them: each may be null. */
export type OuterJoined<S extends RowShape> = {
  readonly [K in keyof S]: S[K] extends { readonly [NARROWED]: infer T }
    ? ColumnKindOf<T | null> & NarrowedColumn<T | null>
    : S[K] extends `${infer B extends ValueKind}${'?' | '!'}`
      ? `${B}?`
      : `${S[K] & ValueKind}?`;
};

/** `shape` on the nullable side of an outer join (`LEFT JOIN LATERAL (…) r ON true`): every column may be null. */
export const outerJoined = <S extends RowShape>(shape: S): OuterJoined<S> =>
  Object.fromEntries(
    Object.entries(shape).map(([name, kind]) => [name, `${kind.replace(/[?!]$/, '')}?`]),
  ) as OuterJoined<S>;

/** The type of a statement's rows, carried by the statement: type-only, never set. */
declare const ROW: unique symbol;

/**
 * A parameterised statement; a `name` makes Postgres parse and plan it once per connection (dropped behind
 * a transaction pooler, where connections change: transaction-pooler.ts).
 */
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
  readonly row?: RowShape;
  readonly [ROW]?: R;
}

/** A statement built with Prisma's `sql` tag, for a Prisma transaction's `$executeRaw` / `$queryRaw`. */
export type SqlTemplate<A extends unknown[]> = ((...args: A) => Prisma.Sql) & {
  readonly statement: { readonly label: string };
};

const DECLARED = Symbol.for('bff.sql-statement');

/**
 * Declares a statement: `name` (undefined: sent unnamed, planned each time), its text, and the row it
 * yields, which is its row type (`sqlStatement('users.list', LIST, { id: 'string', email: 'string?' })`):
 * the one declaration of it. Only `name` and `text` are enumerable, so a spread of it is a plain pg query
 * config.
 */
export function sqlStatement(name: string | undefined, text: string): Statement;
export function sqlStatement<const S extends RowShape>(
  name: string | undefined,
  text: string,
  row: S,
): Statement<RowOf<S>>;
export function sqlStatement(name: string | undefined, text: string, row?: RowShape): Statement<object> {
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
