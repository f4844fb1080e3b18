import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';

/**
 * A table and the columns a COPY writes, in the order each row gives its values. Declared once beside the
 * repository that owns the table; test/sql-statements checks every declared target against the schema.
 */
export interface CopyTarget {
  readonly label: string;
  readonly table: string;
  readonly columns: readonly string[];
}

/** What a COPY field may hold; null and undefined are SQL NULL. */
export type CopyValue = string | number | bigint | boolean | Date | null | undefined;

const TARGETS: CopyTarget[] = [];

/** Declares a COPY target (see CopyTarget). */
export function copyTarget(label: string, table: string, columns: readonly string[]): CopyTarget {
  const target = { label, table, columns };
  TARGETS.push(target);
  return target;
}

/** Every target declared by the modules loaded so far: for the schema check. */
export const declaredCopyTargets = (): readonly CopyTarget[] => TARGETS;

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One field in COPY's text format: a backslash, tab or line break escaped; NULL as `\N`. */
export function copyField(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string')
    return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPED[c]) : value;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/**
 * Text gathered before it goes to the connection: well under V8's large-object size (128 KiB), so no
 * chunk is an allocation of its own whose pages fault in on first touch (3 ms a megabyte, measured).
 */
const CHUNK_CHARS = 48 * 1024;

/**
 * Writes `rows` into the target with one `COPY … FROM STDIN` on `db` (a transaction's connection): no
 * statement to plan and no JSON to parse per row, so Postgres spends a fraction of what a multi-row
 * INSERT costs. Sent in chunks as the rows are formatted, waiting while the connection is behind. COPY
 * cannot resolve a conflict: a row that breaks a unique index fails the whole COPY (and its
 * transaction), which the caller must expect.
 */
export async function copyRows(
  db: pg.ClientBase,
  target: CopyTarget,
  rows: Iterable<readonly CopyValue[]>,
): Promise<void> {
  const stream = db.query(copyStreams.from(`COPY ${target.table} (${target.columns.join(', ')}) FROM STDIN`));
  // The stream's failure (Postgres refused a row) ends the loop; the last await throws it.
  let failed = false;
  const done = finished(stream);
  done.catch(() => {
    failed = true;
  });
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i += 1) text += (i === 0 ? '' : '\t') + copyField(row[i]);
    text += '\n';
    if (text.length < CHUNK_CHARS) continue;
    const sent = stream.write(text);
    text = '';
    if (!sent) await Promise.race([once(stream, 'drain'), done]);
    if (failed) break;
  }
  if (!failed) stream.end(text);
  await done;
}

/** Postgres refused a row for a unique index (23505): how a COPY meets a row already there. */
export const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
