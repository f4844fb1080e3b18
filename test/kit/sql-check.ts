import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import {
  type ColumnKind,
  isSqlStatement,
  isSqlTemplate,
  type RowShape,
  type ValueKind,
} from '#libs/database';

/** A hand-written statement as the check sees it: where it is declared, its text and the row it promises. */
export interface DeclaredStatement {
  /** The file that declares it, from the repository root. */
  file: string;
  /** Its name when it has one, else where it is exported (`PARKED_PAYMENT_SQL.first`). */
  label: string;
  text: string;
  row?: RowShape;
}

const ROOT = join(import.meta.dirname, '..', '..');

/** `.ts` sources under `dir` (from the repository root), specs and generated code left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.d.ts'))
    .filter((f) => !f.split(/[\\/]/).includes('generated') && !f.split(/[\\/]/).includes('node_modules'))
    .map((f) => join(dir, f));
}

/** The code of a source file, its comments (those that start a line) blanked out, lines kept in place. */
export const readCode = (file: string) => {
  const blank = (comment: string) => comment.replace(/[^\n]/g, ' ');
  return readFileSync(join(ROOT, file), 'utf8')
    .replace(/^[ \t]*\/\*[\s\S]*?\*\//gm, blank)
    .replace(/^[ \t]*\/\/.*$/gm, blank);
};

/** How many statements a source declares (calls of sqlStatement / sqlTemplate). */
export const declarationsIn = (code: string) =>
  (code.match(/\bsql(Statement|Template)\s*(<[^(]*>)?\(/g) ?? []).length -
  (code.match(/export function sql(Statement|Template)\b/g) ?? []).length;

/**
 * Every statement the modules of `files` export, alone or as the values of an exported object, with the
 * number each file declares (to catch one left unexported, which the check would never see).
 */
export async function declaredStatements(
  files: readonly string[],
): Promise<{ statements: DeclaredStatement[]; unexported: string[] }> {
  const statements: DeclaredStatement[] = [];
  const unexported: string[] = [];
  for (const file of files) {
    const declared = declarationsIn(readCode(file));
    if (declared === 0) continue;
    const module = (await import(pathToFileURL(join(ROOT, file)).href)) as Record<string, unknown>;
    const found: DeclaredStatement[] = [];
    const add = (where: string, value: unknown) => {
      if (isSqlStatement(value)) {
        found.push({
          file,
          label: value.name ?? where,
          text: value.text,
          row: value.row,
        });
      } else if (isSqlTemplate(value)) {
        // The values' places are all the text needs: built with stand-ins (any field of one is null).
        const standIn = new Proxy({}, { get: () => null });
        const args: unknown[] = new Array<unknown>(value.length).fill(standIn);
        found.push({ file, label: value.statement.label, text: value(...args).text });
      }
    };
    for (const [exported, value] of Object.entries(module)) {
      add(exported, value);
      if (typeof value === 'object' && value !== null && !isSqlStatement(value) && !Array.isArray(value)) {
        for (const [key, member] of Object.entries(value)) add(`${exported}.${key}`, member);
      }
    }
    if (found.length < declared) {
      unexported.push(`${file}: declares ${declared} statements, exports ${found.length}`);
    }
    statements.push(...found);
  }
  return { statements, unexported };
}

/** A result column: its name, type and, when it is a table's column as it stands, that column. */
export interface Column {
  name: string;
  dataTypeID: number;
  /** The table's oid and the column's number in it; 0 for anything computed. */
  tableID: number;
  columnID: number;
}

/** The result columns, or null when the statement returns none. */
export type Columns = Column[] | null;

/**
 * Postgres' own description of a statement, without running it: Parse and Describe of the extended
 * protocol (what a named statement costs on first use), then Sync. Postgres resolves every table, column,
 * function and type, infers the parameters' types and names the result columns; an error is Postgres'.
 */
export function describeStatement(client: pg.Client, text: string): Promise<Columns> {
  return new Promise((resolve, reject) => {
    let columns: Columns = null;
    type Connection = {
      parse(query: { name: string; text: string; types: number[] }): void;
      describe(message: { type: 'S'; name: string }): void;
      sync(): void;
    };
    // A submittable, as pg-cursor is: the client hands it the connection and routes the replies to it
    // (ParseComplete, ParameterDescription and NoData it does not need).
    const submittable = {
      submit(connection: Connection) {
        connection.parse({ name: '', text, types: [] });
        connection.describe({ type: 'S', name: '' });
        connection.sync();
      },
      handleRowDescription(message: { fields: Column[] }) {
        columns = message.fields.map((f) => ({
          name: f.name,
          dataTypeID: f.dataTypeID,
          tableID: f.tableID,
          columnID: f.columnID,
        }));
      },
      handleReadyForQuery() {
        resolve(columns);
      },
      handleError(error: Error) {
        reject(error);
      },
      handleDataRow() {},
      handleCommandComplete() {},
      handleEmptyQuery() {},
      handlePortalSuspended() {},
    };
    void client.query(submittable as unknown as pg.QueryConfig);
  });
}

/** A database type as the check needs it. */
export interface PgType {
  name: string;
  /** `e` for an enum. */
  type: string;
  element: number;
}

export async function typesOf(client: pg.Client, oids: Iterable<number>): Promise<Map<number, PgType>> {
  const { rows } = await client.query<{ oid: number; name: string; type: string; element: number }>(
    `SELECT oid::int AS oid, typname AS name, typtype AS type, typelem::int AS element
       FROM pg_type WHERE oid = ANY($1::oid[])`,
    [[...new Set(oids)]],
  );
  return new Map(rows.map((r) => [r.oid, { name: r.name, type: r.type, element: r.element }]));
}

const SCALARS: Record<string, ValueKind> = {
  bool: 'boolean',
  int2: 'number',
  int4: 'number',
  oid: 'number',
  float4: 'number',
  float8: 'number',
  // pg leaves these as text: exact, never a float.
  int8: 'string',
  numeric: 'string',
  text: 'string',
  varchar: 'string',
  bpchar: 'string',
  char: 'string',
  name: 'string',
  uuid: 'string',
  unknown: 'string',
  date: 'Date',
  timestamp: 'Date',
  timestamptz: 'Date',
  json: 'json',
  jsonb: 'json',
};

/** Arrays pg parses (of the others, and of enums, it hands back the literal `{a,b}` text). */
const ARRAYS: Record<string, ValueKind> = {
  _text: 'string[]',
  _varchar: 'string[]',
  _bpchar: 'string[]',
  _uuid: 'string[]',
  _int2: 'number[]',
  _int4: 'number[]',
  _float4: 'number[]',
  _float8: 'number[]',
};

/** What node-postgres makes of a column of this type, or undefined when it is none of the kinds. */
export function kindOf(type: PgType | undefined): ValueKind | undefined {
  if (!type) return undefined;
  if (type.type === 'e') return 'string';
  return SCALARS[type.name] ?? ARRAYS[type.name];
}

/** The table columns among `columns` that may hold null, as `tableID:columnID`. */
export async function nullableColumns(client: pg.Client, columns: Columns): Promise<Set<string>> {
  const direct = (columns ?? []).filter((c) => c.tableID !== 0);
  if (direct.length === 0) return new Set();
  const { rows } = await client.query<{ at: string }>(
    `SELECT attrelid::int || ':' || attnum AS at FROM pg_attribute
       WHERE NOT attnotnull AND (attrelid::int, attnum::int) IN (SELECT * FROM unnest($1::int[], $2::int[]))`,
    [direct.map((c) => c.tableID), direct.map((c) => c.columnID)],
  );
  return new Set(rows.map((r) => r.at));
}

/** A statement's text joins a table on the nullable side (its columns may be null whatever the schema says). */
const outerJoins = (text: string) => /\b(LEFT|RIGHT|FULL)\s+(OUTER\s+)?JOIN\b/i.test(text);

/**
 * Every way the described result differs from the row the statement declares: a column's name or kind,
 * and where Postgres knows it (a table's column returned as it is, no outer join), whether it may be null.
 */
export function rowProblems(
  row: RowShape,
  columns: Columns,
  types: Map<number, PgType>,
  nullable: Set<string> = new Set(),
  text = '',
): string[] {
  if (!columns) return ['the row type declares columns, and the statement returns none'];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const column of columns) {
    const type = types.get(column.dataTypeID);
    const typeName = type?.name ?? `oid ${column.dataTypeID}`;
    if (seen.has(column.name))
      problems.push(`column "${column.name}" is returned twice (one hides the other)`);
    seen.add(column.name);
    const declared: ColumnKind | undefined = row[column.name];
    if (declared === undefined) {
      problems.push(`column "${column.name}" (${typeName}) is returned but not in the row type`);
      continue;
    }
    const kind = declared.replace(/[?!]$/, '') as ValueKind;
    const actual = kindOf(type);
    if (actual !== kind) {
      problems.push(
        `column "${column.name}" is ${typeName}, which pg reads as ${actual ?? 'none of the kinds'}; the row type says ${kind}`,
      );
    }
    const mayBeNull = column.tableID !== 0 && nullable.has(`${column.tableID}:${column.columnID}`);
    const direct = column.tableID !== 0;
    if (declared.endsWith('!') && !mayBeNull) {
      problems.push(
        `column "${column.name}" is declared '${declared}' (not null here, though its table's column may be), and ${direct ? "its table's column is NOT NULL" : 'it is computed'}: declare it '${kind}'${direct ? '' : ` or '${kind}?'`}`,
      );
    } else if (mayBeNull && declared === kind) {
      problems.push(
        `column "${column.name}" may be null (its table's column may): declare it '${kind}?', or '${kind}!' when the statement rules null out`,
      );
    } else if (direct && !mayBeNull && declared.endsWith('?') && kind !== 'json' && !outerJoins(text)) {
      // Not for JSON: a NOT NULL jsonb column may hold the JSON null, which pg hands back as null.
      problems.push(
        `column "${column.name}" is never null (its table's column is NOT NULL): declare it '${kind}'`,
      );
    }
  }
  for (const name of Object.keys(row)) {
    if (!seen.has(name)) problems.push(`the row type's "${name}" is not among the columns returned`);
  }
  return problems;
}
