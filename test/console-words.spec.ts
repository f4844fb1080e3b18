import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '#libs/domain/audit';
import { ConsentStatus } from '#libs/domain/consents';
import { SYNC_RUN_TRIGGERS } from '#libs/domain/sync-runs';
import { AccountSyncStatus, DeliveryStatus, SyncRunStatus } from '../libs/database/src/generated/enums.js';

/**
 * The console says the api's values in plain words (browser modules this process cannot import): each
 * list of words there must name exactly the api's values, so a value added to the api is not shown raw
 * and a word is not kept for a value gone. Event types have no list there: the console reads them, and
 * their words, from GET /v1/event-types (apps/api/console/event-types.js).
 */
const source = (file: string) =>
  readFileSync(new URL(`../apps/api/console/${file}`, import.meta.url), 'utf8');

/** The keys of the object literal `name: { … }` (or `const name = { … }`) in a console module. */
function keysOf(text: string, name: string): string[] {
  const start = new RegExp(`(?:const ${name} =|^\\s*${name}:) \\{`, 'm').exec(text);
  if (!start) throw new Error(`no ${name} in the console`);
  let depth = 0;
  let end = start.index + start[0].length - 1;
  for (; end < text.length; end += 1) {
    if (text[end] === '{') depth += 1;
    if (text[end] === '}' && --depth === 0) break;
  }
  // The words (string values) out first, so a colon inside one is not taken for a key's.
  const body = text.slice(start.index + start[0].length, end).replace(/:\s*(["'])(?:\\.|(?!\1).)*\1/g, ': _');
  return [...body.matchAll(/'?([A-Za-z_][\w.-]*)'?\s*:/g)].map((m) => m[1]).sort();
}

const lower = (values: object) =>
  Object.values(values)
    .map((v) => String(v).toLowerCase())
    .sort();

describe('console: the words for the api’s values', () => {
  const ui = source('ui.js');

  it.each([
    ['audit actions', keysOf(source('operator-audit.js'), 'ACTIONS'), [...AUDIT_ACTIONS].sort()],
    ['consent statuses', keysOf(ui, 'consent'), Object.values(ConsentStatus).sort()],
    ['delivery statuses', keysOf(ui, 'delivery'), Object.values(DeliveryStatus).sort()],
    ['sync run statuses', keysOf(ui, 'run'), lower(SyncRunStatus)],
    ['account sync states', keysOf(ui, 'accountSync'), lower(AccountSyncStatus)],
    ['sync triggers', keysOf(ui, 'trigger'), [...SYNC_RUN_TRIGGERS].sort()],
  ])('has words for exactly the %s', (_what, named, api) => {
    expect(named).toEqual(api);
  });
});
