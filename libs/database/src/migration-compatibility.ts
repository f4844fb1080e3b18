/**
 * The expand/contract rule of a rolling upgrade (docs/upgrades.md): the previous release keeps
 * serving while this release's migrations apply, so every migration it has not seen must leave its code
 * working. This reads each such statement and refuses the ones that can break it: whatever removes or
 * renames what old code reads, changes a type it writes, or adds a constraint its writes may violate.
 * Anything it does not recognise as additive is refused too, since an unknown statement is not known safe.
 *
 * A contract step (a drop, say) is allowed only when marked by a comment just before it,
 * `-- contract(<release>): <why>`, naming a release already made from which the code no longer uses
 * what the statement removes: that release, or a later one, is the one running beside this migration.
 */

import { IDENT, identifiersIn, QUALIFIED, splitStatements, topLevelParts, unquote } from './sql-split.js';

export interface MigrationSource {
  name: string;
  sql: string;
}

export interface Refusal {
  migration: string;
  line: number;
  statement: string;
  rule: string;
}

export interface CompatibilityInput {
  /** Migrations the previous release applied: what exists when this release's migrations run. */
  released: MigrationSource[];
  /** This release's new migrations, in the order they apply. */
  window: MigrationSource[];
  /** Names of the releases made so far (prisma/releases.json), the last being the previous one. */
  releases: string[];
}

/** What the window has created so far: the old release never uses any of it, so changing it is safe. */
interface WindowState {
  tables: Set<string>;
  columns: Set<string>;
  indexes: Set<string>;
}

const RULES = {
  drop: 'drops what the previous release may still read or write (contract in a later release)',
  rename: 'renames what the previous release reads by its old name (add the new one, contract later)',
  columnType: "changes a column's type under the previous release's reads and writes",
  setNotNull: 'makes an existing column NOT NULL: the previous release may write NULL to it',
  addNotNull: 'adds a NOT NULL column without a DEFAULT: the previous release inserts rows without it',
  dropDefault: "drops a default the previous release's inserts rely on",
  constraint:
    "adds a constraint over existing columns: the previous release's writes may violate it (NOT VALID only spares the old rows)",
  unique: 'adds a unique index to an existing table: the previous release may write duplicates',
  dropUnique: 'drops a unique index the previous release may rely on (ON CONFLICT, or no duplicates)',
  trigger:
    "adds a BEFORE or INSTEAD OF trigger to an existing table: it may change or refuse the previous release's writes",
  replace: 'replaces a function or view the previous release uses',
  deleteRows: 'deletes rows the previous release may still read',
  unknown: 'is not recognised as backward compatible (mark it as a contract step if it is one)',
} as const;

const CREATE_INDEX = String.raw`CREATE (UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?(${IDENT}) ON (?:ONLY )?(${QUALIFIED})`;

/** The rule a CREATE INDEX breaks; `columns` is the text after its table. */
function indexBroken(
  [, unique, index, table]: RegExpExecArray,
  columns: string,
  uniques: Set<string>,
  state: WindowState,
): string | undefined {
  state.indexes.add(unquote(index));
  if (!unique) return undefined;
  uniques.add(unquote(index));
  // Columns the window added are NULL in the previous release's rows, and NULLs never collide.
  const named = identifiersIn(columns);
  const allNew = named.length > 0 && named.every((c) => state.columns.has(`${unquote(table)}.${c}`));
  return state.tables.has(unquote(table)) || allNew ? undefined : RULES.unique;
}

/**
 * The rule a statement breaks, or undefined when it is backward compatible. `uniques` holds the unique
 * indexes that exist (created by any migration so far), `state` what the window created.
 */
function ruleBroken(text: string, uniques: Set<string>, state: WindowState): string | undefined {
  const s = text;
  const m = (pattern: string) => new RegExp(`^${pattern}`, 'i').exec(s);
  let match: RegExpExecArray | null;

  if ((match = m(String.raw`CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?(${QUALIFIED})`))) {
    state.tables.add(unquote(match[1]));
    return undefined;
  }
  if ((match = m(CREATE_INDEX))) return indexBroken(match, s.slice(match[0].length), uniques, state);
  if (m(String.raw`CREATE (?:TYPE|SEQUENCE|FUNCTION|PROCEDURE|VIEW|MATERIALIZED VIEW|SCHEMA|EXTENSION) `)) {
    return undefined;
  }
  if (m(String.raw`CREATE OR REPLACE `)) return RULES.replace;
  if (
    (match = m(
      String.raw`CREATE (?:CONSTRAINT )?TRIGGER ${IDENT} (BEFORE|AFTER|INSTEAD OF) .*? ON (${QUALIFIED})`,
    ))
  ) {
    // An AFTER trigger sees the row as the previous release wrote it (a notification, a history row).
    const [, when, table] = match;
    return when.toUpperCase() === 'AFTER' || state.tables.has(unquote(table)) ? undefined : RULES.trigger;
  }
  if (m(String.raw`COMMENT ON `) || m(String.raw`(?:INSERT|UPDATE|SELECT|SET|RESET|ANALYZE) `)) {
    return undefined;
  }
  if (m(String.raw`(?:DELETE|TRUNCATE) `)) return RULES.deleteRows;
  if (m(String.raw`ALTER TYPE ${QUALIFIED} ADD VALUE `)) return undefined;
  if (m(String.raw`ALTER (?:TYPE|INDEX|SEQUENCE|VIEW|FUNCTION|SCHEMA) ${QUALIFIED} RENAME `)) {
    return RULES.rename;
  }
  if ((match = m(String.raw`DROP INDEX (?:CONCURRENTLY )?(?:IF EXISTS )?(${QUALIFIED})`))) {
    const index = unquote(match[1]);
    return uniques.has(index) && !state.indexes.has(index) ? RULES.dropUnique : undefined;
  }
  if ((match = m(String.raw`DROP TABLE (?:IF EXISTS )?(${QUALIFIED})`))) {
    return state.tables.has(unquote(match[1])) ? undefined : RULES.drop;
  }
  if (m(String.raw`DROP `)) return RULES.drop;
  if ((match = m(String.raw`ALTER TABLE (?:IF EXISTS )?(?:ONLY )?(${QUALIFIED}) `))) {
    const table = unquote(match[1]);
    const newTable = state.tables.has(table);
    for (const action of topLevelParts(s.slice(match[0].length))) {
      const broken = actionBroken(action, table, state);
      if (broken && !newTable) return broken;
    }
    return undefined;
  }
  return RULES.unknown;
}

/** The rule one action of `ALTER TABLE <table>` breaks. */
function actionBroken(action: string, table: string, state: WindowState): string | undefined {
  const a = (pattern: string) => new RegExp(`^${pattern}`, 'i').exec(action);
  let match: RegExpExecArray | null;
  if (
    (match = a(String.raw`ADD (?:COLUMN )?(?:IF NOT EXISTS )?(${IDENT}) `)) &&
    !/^ADD CONSTRAINT /i.test(action)
  ) {
    const rest = action.slice(match[0].length);
    state.columns.add(`${table}.${unquote(match[1])}`);
    if (/\b(?:PRIMARY KEY|UNIQUE)\b/i.test(rest)) return RULES.unique;
    const notNull = /\bNOT NULL\b/i.test(rest);
    const filled = /\b(?:DEFAULT|GENERATED)\b/i.test(rest);
    return notNull && !filled ? RULES.addNotNull : undefined;
  }
  if (a(String.raw`ADD (?:CONSTRAINT ${IDENT} )?(?:FOREIGN KEY|CHECK|UNIQUE|PRIMARY KEY|EXCLUDE)`)) {
    const body = action.replace(new RegExp(`^ADD (?:CONSTRAINT ${IDENT} )?`, 'i'), '');
    const columns = identifiersIn(body);
    const allNew = columns.length > 0 && columns.every((c) => state.columns.has(`${table}.${c}`));
    return allNew ? undefined : RULES.constraint;
  }
  if (a(String.raw`VALIDATE CONSTRAINT `) || a(String.raw`(?:SET|RESET) \(`)) return undefined;
  if ((match = a(String.raw`ALTER (?:COLUMN )?(${IDENT}) `))) {
    const column = `${table}.${unquote(match[1])}`;
    const change = action.slice(match[0].length);
    if (/^(?:SET DEFAULT|DROP NOT NULL|SET STATISTICS|SET STORAGE)\b/i.test(change)) return undefined;
    if (state.columns.has(column)) return undefined;
    if (/^DROP DEFAULT\b/i.test(change)) return RULES.dropDefault;
    if (/^SET NOT NULL\b/i.test(change)) return RULES.setNotNull;
    if (/^(?:SET DATA )?TYPE\b/i.test(change)) return RULES.columnType;
    return RULES.unknown;
  }
  if (
    (match = a(String.raw`DROP (?:COLUMN )?(?:IF EXISTS )?(${IDENT})`)) &&
    !/^DROP CONSTRAINT /i.test(action)
  ) {
    return state.columns.has(`${table}.${unquote(match[1])}`) ? undefined : RULES.drop;
  }
  if (a(String.raw`DROP CONSTRAINT `)) return RULES.drop;
  if (a(String.raw`RENAME `)) return RULES.rename;
  return RULES.unknown;
}

const CONTRACT_MARK = /^contract\(([^)]+)\):\s*(\S.*)$/i;

/** Every statement of `window` that the previous release may not survive, with the rule it breaks. */
export function incompatibleStatements({ released, window, releases }: CompatibilityInput): Refusal[] {
  const uniques = new Set<string>();
  const ignored: WindowState = { tables: new Set(), columns: new Set(), indexes: new Set() };
  // The released migrations only say which unique indexes exist; none of their statements is judged.
  for (const { text } of released.flatMap((migration) => splitStatements(migration.sql))) {
    const dropped = new RegExp(`^DROP INDEX (?:CONCURRENTLY )?(?:IF EXISTS )?(${QUALIFIED})`, 'i').exec(text);
    if (dropped) uniques.delete(unquote(dropped[1]));
    else ruleBroken(text, uniques, ignored);
  }

  const state: WindowState = { tables: new Set(), columns: new Set(), indexes: new Set() };
  const refusals: Refusal[] = [];
  for (const migration of window) {
    for (const statement of splitStatements(migration.sql)) {
      const rule = ruleBroken(statement.text, uniques, state);
      if (!rule) continue;
      const refuse = (why: string) =>
        refusals.push({
          migration: migration.name,
          line: statement.line,
          statement: statement.text,
          rule: why,
        });
      const mark = statement.comments.map((c) => CONTRACT_MARK.exec(c)).find(Boolean);
      if (!mark) {
        refuse(rule);
        continue;
      }
      // The named release already stopped using what is removed, and it is no later than the previous
      // release: so no release that may run beside this migration uses it.
      if (!releases.includes(mark[1])) {
        refuse(
          `is marked contract(${mark[1]}), but ${mark[1]} is not a release in prisma/releases.json: ` +
            'a contract step may only remove what a release already made no longer uses',
        );
      }
    }
  }
  return refusals;
}

/** One line per refusal: the migration, the line, the statement and the rule it breaks. */
export function describeRefusals(refusals: Refusal[]): string {
  return refusals
    .map((r) => {
      const statement = r.statement.length > 160 ? `${r.statement.slice(0, 157)}...` : r.statement;
      return `${r.migration}/migration.sql:${r.line}: ${statement}\n  refused: it ${r.rule}`;
    })
    .join('\n');
}
