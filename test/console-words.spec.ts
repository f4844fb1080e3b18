import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '#libs/domain/audit';

/**
 * The console names each audit action in plain words (apps/api/console/operator-audit.js, a browser
 * module this process cannot import): the list there must be the api's list, so an action added to the
 * api is not shown as its raw name.
 */
describe('console: the audit log’s words', () => {
  it('has plain words for exactly the api’s audit actions', () => {
    const source = readFileSync(new URL('../apps/api/console/operator-audit.js', import.meta.url), 'utf8');
    const block = /const ACTIONS = \{([\s\S]*?)\n\};/.exec(source)?.[1] ?? '';
    const named = [...block.matchAll(/^\s*'([a-z.-]+)':/gm)].map((m) => m[1]);
    expect(named.sort()).toEqual([...AUDIT_ACTIONS].sort());
  });
});
