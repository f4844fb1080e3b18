import { globSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LONG_FILES,
  MAX_FILE_LINES,
  NEAR_LIMIT_FILES,
  NEAR_LIMIT_LINES,
  SIZED_SOURCES,
  UNSIZED_SOURCES,
} from '../scripts/eslint/size-rules.mjs';

/** Our sized source files and their line counts (as eslint's max-lines counts them). */
const sized = () =>
  globSync(SIZED_SOURCES, { exclude: UNSIZED_SOURCES })
    .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .sort((a, b) => a.file.localeCompare(b.file));

/*
 * A file may grow to MAX_FILE_LINES; one within sight of it says why it is as long as it is, beside the
 * few past it (scripts/eslint/size-rules.mjs), so growth is a decision a reviewer sees, not drift.
 */
describe('file sizes', () => {
  const files = sized();

  it('names why each file near the limit is as long as it is', () => {
    const unexplained = files
      .filter(({ lines }) => lines >= NEAR_LIMIT_LINES && lines <= MAX_FILE_LINES)
      .filter(({ file }) => !(file in NEAR_LIMIT_FILES) && !(file in LONG_FILES))
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(
      unexplained,
      `within ${MAX_FILE_LINES - NEAR_LIMIT_LINES} lines of the limit: cut at a seam, or say why in NEAR_LIMIT_FILES`,
    ).toEqual([]);
  });

  it('keeps only the reasons still needed', () => {
    const counts = new Map(files.map(({ file, lines }) => [file, lines]));
    const stale = Object.keys(NEAR_LIMIT_FILES).filter((file) => (counts.get(file) ?? 0) < NEAR_LIMIT_LINES);
    expect(stale, 'no longer near the limit: drop its entry').toEqual([]);
    expect(Object.values(NEAR_LIMIT_FILES).every((why) => why.length > 0 && why.length <= 100)).toBe(true);
  });
});
