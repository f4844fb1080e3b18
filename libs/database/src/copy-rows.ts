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
const TAB = 0x09;
const NEWLINE = 0x0a;

/**
 * One field in COPY's text format: a backslash, tab or line break escaped; NULL as `\N`. `iso` prints a
 * Date: a page's rows share one (their `created_at`), printed once.
 */
function copyField(value: CopyValue, iso: (date: Date) => string): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string')
    return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPED[c]) : value;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return iso(value);
  return String(value);
}

/**
 * Buffers the COPY text is encoded into, kept for the next COPY: a megabyte allocated afresh for each
 * page costs its first-touch page faults (3 ms, measured), and many smaller ones freed by the collector
 * leave glibc's heap fragmented (30 MiB more resident in the sync bench). A few, each no larger than a
 * few pages, are kept.
 */
const idle: Buffer[] = [];
const IDLE_KEPT = 4;
const INITIAL_BYTES = 1 << 20;
const LARGEST_KEPT_BYTES = 8 << 20;
const MESSAGE_BYTES = 64 << 10;

/**
 * Writes `rows` into the target with one `COPY … FROM STDIN` on `db` (a transaction's connection): no
 * statement to plan and no JSON to parse per row, so Postgres spends a fraction of what a multi-row
 * INSERT costs. COPY cannot resolve a conflict: a row that breaks a unique index fails the whole COPY
 * (and its transaction), which the caller must expect.
 */
export async function copyRows(
  db: pg.ClientBase,
  target: CopyTarget,
  rows: Iterable<readonly CopyValue[]>,
): Promise<void> {
  let buffer = idle.pop() ?? Buffer.allocUnsafeSlow(INITIAL_BYTES);
  let size = 0;
  let lastDate: Date | undefined;
  let lastIso = '';
  const iso = (date: Date) => {
    if (date !== lastDate) {
      lastDate = date;
      lastIso = date.toISOString();
    }
    return lastIso;
  };
  // Each field is written into the buffer as it is. A row's line built as one string first (and
  // flattened by the write) was over a third of what a first sync's page allocates in the worker
  // (2.2 of 5.9 MB per 1,000 rows: garbage the collector then works through) and took half as much
  // CPU again as this.
  for (const row of rows) {
    for (let i = 0; i < row.length; i += 1) {
      const field = copyField(row[i], iso);
      // A character is at most three bytes of UTF-8; one more for the tab or line break after it.
      const room = field.length * 3 + 1;
      if (size + room > buffer.length) {
        const larger = Buffer.allocUnsafeSlow(Math.max(buffer.length * 2, size + room));
        buffer.copy(larger, 0, 0, size);
        buffer = larger;
      }
      size += buffer.write(field, size);
      buffer[size] = i === row.length - 1 ? NEWLINE : TAB;
      size += 1;
    }
  }
  if (size === 0) return keep(buffer);
  const stream = db.query(copyStreams.from(`COPY ${target.table} (${target.columns.join(', ')}) FROM STDIN`));
  // In messages of MESSAGE_BYTES: Postgres reads each CopyData message whole into a buffer of the COPY's,
  // grown to the largest; a page sent as one megabyte message cost the backend a megabyte of fresh memory
  // per page, every page of it faulted in (a quarter of a millisecond per 64 KiB here).
  for (let at = 0; at < size; at += MESSAGE_BYTES) {
    stream.write(buffer.subarray(at, Math.min(size, at + MESSAGE_BYTES)));
  }
  stream.end();
  await finished(stream);
  // Postgres acknowledged every byte: the socket holds none of the buffer any more. (A failed COPY's
  // buffer is left to the collector: part of it may still be on its way.)
  keep(buffer);
}

function keep(buffer: Buffer): void {
  if (idle.length < IDLE_KEPT && buffer.length <= LARGEST_KEPT_BYTES) idle.push(buffer);
}

/** Postgres refused a row for a unique index (23505): how a COPY meets a row already there. */
export const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
