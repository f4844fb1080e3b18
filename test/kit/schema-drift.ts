import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import pg from 'pg';

/**
 * The database structure, reduced to what the drift test compares: tables, columns (type, nullability,
 * whether the database supplies a default), primary keys, unique and plain indexes (columns, order,
 * method), foreign keys (columns, target, delete rule) and enum types. One builder reads it from
 * schema.prisma (through Prisma's own DMMF), the other from a live database (pg_catalog).
 */
export interface DbColumn {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

export interface DbIndex {
  table: string;
  columns: string[];
  unique: boolean;
  method: string;
}

export interface DbForeignKey {
  table: string;
  columns: string[];
  references: string;
  referencedColumns: string[];
  onDelete: string;
}

export interface DbStructure {
  tables: Map<string, Map<string, DbColumn>>;
  primaryKeys: Map<string, string[]>;
  /** Keyed by index name. */
  indexes: Map<string, DbIndex>;
  /** Keyed by constraint name. */
  foreignKeys: Map<string, DbForeignKey>;
  enums: Map<string, string[]>;
}

// ------------------------------------------------------------------ from schema.prisma

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  /** A function default ({ name, args }) or a literal value. */
  default?: unknown;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
  primaryKey: { fields: string[] } | null;
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  algorithm?: string;
  fields: { name: string; sortOrder?: 'asc' | 'desc' }[];
}

interface Dmmf {
  datamodel: {
    models: DmmfModel[];
    enums: { name: string; dbName?: string | null; values: { name: string; dbName?: string | null }[] }[];
    indexes: DmmfIndex[];
  };
}

/** Prisma scalar → Postgres type when no @db.* attribute says otherwise (Prisma's documented defaults). */
const SCALAR_DEFAULT: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

/** @db.X(args) → the spelling of pg's format_type(). */
function nativeType(name: string, args: string[]): string {
  const a = args.join(',');
  switch (name) {
    case 'Uuid':
      return 'uuid';
    case 'Text':
      return 'text';
    case 'VarChar':
      return a ? `character varying(${a})` : 'character varying';
    case 'Char':
      return a ? `character(${a})` : 'character';
    case 'Decimal':
      return a ? `numeric(${a})` : 'numeric';
    case 'Timestamptz':
      return `timestamp(${a || '6'}) with time zone`;
    case 'Timestamp':
      return `timestamp(${a || '6'}) without time zone`;
    case 'Date':
      return 'date';
    case 'SmallInt':
      return 'smallint';
    case 'Integer':
      return 'integer';
    case 'BigInt':
      return 'bigint';
    case 'DoublePrecision':
      return 'double precision';
    case 'Real':
      return 'real';
    case 'Boolean':
      return 'boolean';
    case 'Json':
      return 'json';
    case 'JsonB':
      return 'jsonb';
    case 'ByteA':
      return 'bytea';
    case 'Inet':
      return 'inet';
    default:
      throw new Error(`schema-drift: native type @db.${name} is not mapped yet; add it to nativeType()`);
  }
}

/** Default values Prisma computes in the client (uuid(), cuid(), nanoid()) leave no default in the database. */
const CLIENT_SIDE_DEFAULTS = new Set(['uuid', 'cuid', 'nanoid', 'ulid']);

const PRISMA_ON_DELETE: Record<string, string> = {
  Cascade: 'CASCADE',
  SetNull: 'SET NULL',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetDefault: 'SET DEFAULT',
};

/** Prisma's constraint naming: {table}_{columns}_{suffix}, cut to Postgres's 63 characters. */
function prismaName(table: string, columns: string[], suffix: string): string {
  const base = `${table}_${columns.join('_')}`;
  const limit = 63 - suffix.length - 1;
  return `${base.length > limit ? base.slice(0, limit) : base}_${suffix}`;
}

export async function structureFromSchema(schemaPath: string): Promise<DbStructure> {
  const require = createRequire(import.meta.url);
  const wasm = require('@prisma/prisma-schema-wasm') as { get_dmmf: (params: string) => string };
  const prismaSchema = await readFile(schemaPath, 'utf8');
  const dmmf = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema }))) as Dmmf;
  const enumDbName = new Map(dmmf.datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const models = new Map(dmmf.datamodel.models.map((m) => [m.name, m]));
  const tableOf = (model: string) => models.get(model)!.dbName ?? model;
  const columnOf = (model: string, field: string) => {
    const f = models.get(model)!.fields.find((x) => x.name === field)!;
    return f.dbName ?? f.name;
  };

  const structure: DbStructure = {
    tables: new Map(),
    primaryKeys: new Map(),
    indexes: new Map(),
    foreignKeys: new Map(),
    enums: new Map(
      dmmf.datamodel.enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)]),
    ),
  };

  for (const model of dmmf.datamodel.models) {
    const table = model.dbName ?? model.name;
    const columns = new Map<string, DbColumn>();
    for (const field of model.fields) {
      if (field.kind === 'object') {
        if (field.relationFromFields?.length) {
          const fromColumns = field.relationFromFields.map((f) => columnOf(model.name, f));
          const required = field.relationFromFields.every(
            (f) => model.fields.find((x) => x.name === f)!.isRequired,
          );
          structure.foreignKeys.set(prismaName(table, fromColumns, 'fkey'), {
            table,
            columns: fromColumns,
            references: tableOf(field.type),
            referencedColumns: (field.relationToFields ?? []).map((f) => columnOf(field.type, f)),
            onDelete: PRISMA_ON_DELETE[field.relationOnDelete ?? (required ? 'Restrict' : 'SetNull')],
          });
        }
        continue;
      }
      const base =
        field.kind === 'enum'
          ? enumDbName.get(field.type)!
          : field.nativeType
            ? nativeType(field.nativeType[0], field.nativeType[1])
            : SCALAR_DEFAULT[field.type];
      const defaultName =
        typeof field.default === 'object' && field.default !== null && 'name' in field.default
          ? (field.default as { name: string }).name
          : undefined;
      columns.set(field.dbName ?? field.name, {
        type: field.isList ? `${base}[]` : base,
        // Prisma declares list columns without NOT NULL.
        nullable: field.isList || !field.isRequired,
        hasDefault: field.hasDefaultValue && !(defaultName && CLIENT_SIDE_DEFAULTS.has(defaultName)),
      });
    }
    structure.tables.set(table, columns);
  }

  for (const index of dmmf.datamodel.indexes) {
    const table = tableOf(index.model);
    const columns = index.fields.map(
      (f) => `${columnOf(index.model, f.name)}${f.sortOrder === 'desc' ? ' DESC' : ''}`,
    );
    const plainColumns = index.fields.map((f) => columnOf(index.model, f.name));
    if (index.type === 'id') {
      structure.primaryKeys.set(table, plainColumns);
      continue;
    }
    const suffix = index.type === 'unique' ? 'key' : 'idx';
    structure.indexes.set(index.dbName ?? prismaName(table, plainColumns, suffix), {
      table,
      columns,
      unique: index.type === 'unique',
      method: (index.algorithm ?? 'BTree').toLowerCase(),
    });
  }
  for (const [name, index] of Object.entries(EXPRESSION_INDEXES)) structure.indexes.set(name, index);
  return structure;
}

/**
 * Indexes on an expression, which schema.prisma cannot declare (its models name them in a comment): the
 * migrations must build exactly these, each column as Postgres prints it.
 */
const EXPRESSION_INDEXES: Record<string, DbIndex> = {
  sync_runs_merchant_id_error_tracing_id_idx: {
    table: 'sync_runs',
    columns: ['merchant_id', "(error_details ->> 'tracingId'::text)"],
    unique: false,
    method: 'btree',
  },
  merchant_events_merchant_id_sync_id_idx: {
    table: 'merchant_events',
    columns: ['merchant_id', "(data ->> 'syncId'::text)"],
    unique: false,
    method: 'btree',
  },
};

// ------------------------------------------------------------------ from a live database

const FK_ACTION: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/** Reads the public schema; the migration runner's own history table is not part of the model. */
export async function structureFromDatabase(databaseUrl: string): Promise<DbStructure> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const ignored = ['_prisma_migrations'];
    const columns = await client.query<{
      table: string;
      column: string;
      type: string;
      nullable: boolean;
      has_default: boolean;
    }>(
      `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
              NOT a.attnotnull AS nullable, a.atthasdef AS has_default
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
          AND c.relname <> ALL($1)
        ORDER BY c.relname, a.attnum`,
      [ignored],
    );
    const indexes = await client.query<{
      name: string;
      table: string;
      unique: boolean;
      primary: boolean;
      method: string;
      columns: string[];
    }>(
      `SELECT i.relname AS name, t.relname AS table, x.indisunique AS unique, x.indisprimary AS primary,
              am.amname AS method,
              ARRAY(
                SELECT pg_get_indexdef(x.indexrelid, k + 1, true)
                       || CASE WHEN (x.indoption[k] & 1) = 1 THEN ' DESC' ELSE '' END
                  FROM generate_subscripts(x.indkey, 1) AS k ORDER BY k
              ) AS columns
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN pg_am am ON am.oid = i.relam
        WHERE n.nspname = 'public' AND t.relname <> ALL($1)`,
      [ignored],
    );
    const foreignKeys = await client.query<{
      name: string;
      table: string;
      references: string;
      columns: string[];
      referenced_columns: string[];
      on_delete: string;
    }>(
      `SELECT con.conname AS name, t.relname AS table, r.relname AS references, con.confdeltype AS on_delete,
              ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
              ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS referenced_columns
         FROM pg_constraint con
         JOIN pg_class t ON t.oid = con.conrelid
         JOIN pg_class r ON r.oid = con.confrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE con.contype = 'f' AND n.nspname = 'public'`,
    );
    const enums = await client.query<{ name: string; values: string[] }>(
      `SELECT t.typname AS name, ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS values
         FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE t.typtype = 'e' AND n.nspname = 'public'`,
    );

    const structure: DbStructure = {
      tables: new Map(),
      primaryKeys: new Map(),
      indexes: new Map(),
      foreignKeys: new Map(),
      enums: new Map(enums.rows.map((e) => [e.name, e.values])),
    };
    for (const row of columns.rows) {
      if (!structure.tables.has(row.table)) structure.tables.set(row.table, new Map());
      structure.tables.get(row.table)!.set(row.column, {
        // format_type quotes enum names that need it; the schema side never does.
        type: row.type.replace(/"/g, ''),
        nullable: row.nullable,
        hasDefault: row.has_default,
      });
    }
    for (const row of indexes.rows) {
      const cols = row.columns.map((c) => c.replace(/"/g, ''));
      if (row.primary) {
        structure.primaryKeys.set(row.table, cols);
        continue;
      }
      structure.indexes.set(row.name, {
        table: row.table,
        columns: cols,
        unique: row.unique,
        method: row.method,
      });
    }
    for (const row of foreignKeys.rows) {
      structure.foreignKeys.set(row.name, {
        table: row.table,
        columns: row.columns,
        references: row.references,
        referencedColumns: row.referenced_columns,
        onDelete: FK_ACTION[row.on_delete] ?? row.on_delete,
      });
    }
    return structure;
  } finally {
    await client.end();
  }
}

// ------------------------------------------------------------------ comparison

const show = (value: unknown) => JSON.stringify(value);

/** Every difference, phrased as "expected by schema.prisma … but the database has …". Empty when they agree. */
export function compareStructures(expected: DbStructure, actual: DbStructure): string[] {
  const problems: string[] = [];
  for (const [table, columns] of expected.tables) {
    const found = actual.tables.get(table);
    if (!found) {
      problems.push(`table ${table}: declared in schema.prisma, missing from the database`);
      continue;
    }
    for (const [name, column] of columns) {
      const got = found.get(name);
      if (!got) problems.push(`column ${table}.${name}: declared, missing from the database`);
      else if (show(got) !== show(column)) {
        problems.push(
          `column ${table}.${name}: schema.prisma says ${show(column)}, the database has ${show(got)}`,
        );
      }
    }
    for (const name of found.keys()) {
      if (!columns.has(name))
        problems.push(`column ${table}.${name}: in the database, not declared in schema.prisma`);
    }
  }
  for (const table of actual.tables.keys()) {
    if (!expected.tables.has(table))
      problems.push(`table ${table}: in the database, not declared in schema.prisma`);
  }
  for (const [table, columns] of expected.primaryKeys) {
    if (show(actual.primaryKeys.get(table)) !== show(columns)) {
      problems.push(
        `primary key of ${table}: schema.prisma says ${show(columns)}, the database has ${show(actual.primaryKeys.get(table))}`,
      );
    }
  }
  const compareNamed = <T>(kind: string, want: Map<string, T>, have: Map<string, T>) => {
    for (const [name, item] of want) {
      const got = have.get(name);
      if (!got) problems.push(`${kind} ${name}: declared ${show(item)}, missing from the database`);
      else if (show(got) !== show(item))
        problems.push(`${kind} ${name}: schema.prisma says ${show(item)}, the database has ${show(got)}`);
    }
    for (const [name, item] of have) {
      if (!want.has(name))
        problems.push(`${kind} ${name}: in the database ${show(item)}, not declared in schema.prisma`);
    }
  };
  compareNamed('index', expected.indexes, actual.indexes);
  compareNamed('foreign key', expected.foreignKeys, actual.foreignKeys);
  compareNamed('enum', expected.enums, actual.enums);
  return problems;
}
