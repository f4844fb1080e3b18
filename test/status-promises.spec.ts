import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConsentStatus } from '#libs/domain/consents';
import { PaymentStatus } from '#libs/domain/payments';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** The backticked words of the first column of every table row under `heading`, up to the next heading. */
function firstColumnWords(path: string, heading: string): Set<string> {
  const text = read(path);
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${path}: no "${heading}"`);
  const end = text.indexOf('\n## ', start + heading.length + 2);
  const rows = text
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s:|-]+$/.test(line));
  const words = rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]));
  return new Set(words);
}

/** The values of a Prisma enum, as the schema declares them. */
function schemaEnum(name: string): string[] {
  const block = new RegExp(`enum ${name} \\{([^}]*)\\}`).exec(read('prisma/schema.prisma'))?.[1];
  if (!block) throw new Error(`no enum ${name} in the schema`);
  return [...block.matchAll(/^\s*([A-Z_]+)\b/gm)].map((m) => m[1]);
}

/**
 * Every status a merchant can read is a claim the docs write down (issue 56): each table of promises names
 * every status the code can show, so a status added without saying what it promises fails here.
 */
describe('the docs say what every status promises', () => {
  it('sync: every run status and every account sync status', () => {
    const words = firstColumnWords('docs/sync.md', '## What each status promises');
    for (const status of [...schemaEnum('SyncRunStatus'), ...schemaEnum('AccountSyncStatus')]) {
      expect(words, status).toContain(status.toLowerCase());
    }
    for (const meta of ['meta.complete', 'error']) expect(words, meta).toContain(meta);
  });

  it('consents: every consent status', () => {
    const words = firstColumnWords('docs/consent-lifecycle.md', '## What each status promises');
    for (const status of Object.values(ConsentStatus)) expect(words, status).toContain(status);
  });

  it('payments: every status this code names', () => {
    const words = firstColumnWords('docs/payments.md', '## Statuses');
    for (const status of Object.values(PaymentStatus)) expect(words, status).toContain(status);
  });
});
