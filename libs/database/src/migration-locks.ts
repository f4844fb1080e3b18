import { QUALIFIED, splitStatements, unquote } from './sql-split.js';

/**
 * The table locks a migration takes, strongest per table, so the migrator can take them all before its
 * first statement. A migration holds its locks until it commits; one that took a lock on "users" and then
 * waited for one on "consents" deadlocked with a request that held "consents" and waited for "users" (the
 * rolling-upgrade test's first finding), and Postgres aborted the request. Taken up front, with a lock
 * timeout shorter than the deadlock check, it is the migration that gives up and retries, never a request.
 */

/** Postgres's table lock modes that migrations take, weakest first. */
const MODES = ['ROW EXCLUSIVE', 'SHARE', 'SHARE ROW EXCLUSIVE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE'] as const;
export type LockMode = (typeof MODES)[number];

/**
 * What each statement locks. Row writes take EXCLUSIVE, not their own ROW EXCLUSIVE: a request holding a
 * row lock the migration's UPDATE waits for could otherwise be waiting for another of its tables.
 */
const LOCKING: [RegExp, LockMode][] = [
  [new RegExp(String.raw`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?(${QUALIFIED})`, 'i'), 'ACCESS EXCLUSIVE'],
  [
    new RegExp(String.raw`^(?:TRUNCATE|DROP TABLE) (?:TABLE )?(?:IF EXISTS )?(${QUALIFIED})`, 'i'),
    'ACCESS EXCLUSIVE',
  ],
  [new RegExp(String.raw`^CREATE (?:UNIQUE )?INDEX .*? ON (?:ONLY )?(${QUALIFIED})`, 'i'), 'SHARE'],
  [new RegExp(String.raw`^CREATE (?:CONSTRAINT )?TRIGGER .*? ON (${QUALIFIED})`, 'i'), 'SHARE ROW EXCLUSIVE'],
  [
    new RegExp(String.raw`^(?:UPDATE (?:ONLY )?|DELETE FROM (?:ONLY )?|INSERT INTO )(${QUALIFIED})`, 'i'),
    'EXCLUSIVE',
  ],
];
const REFERENCES = new RegExp(String.raw`\bREFERENCES (${QUALIFIED})`, 'gi');

/** Each table the SQL names with the strongest lock its statements take on it. */
export function tableLocks(sql: string): Map<string, LockMode> {
  const locks = new Map<string, LockMode>();
  const need = (table: string, mode: LockMode) => {
    const held = locks.get(table);
    if (!held || MODES.indexOf(mode) > MODES.indexOf(held)) locks.set(table, mode);
  };
  for (const { text } of splitStatements(sql)) {
    for (const [pattern, mode] of LOCKING) {
      const match = pattern.exec(text);
      if (match) need(unquote(match[1]), mode);
    }
    // A foreign key checks the table it references, under this lock, while it is added.
    for (const match of text.matchAll(REFERENCES)) need(unquote(match[1]), 'SHARE ROW EXCLUSIVE');
  }
  return locks;
}
