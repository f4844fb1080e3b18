import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the scripts, shared with `npm run docs:api`.
import { renderEventsTable, withEventsTable } from '../scripts/events-table.mjs';
// @ts-expect-error: a plain ES module of the scripts, shared with `npm run docs:api`.
import { renderReference } from '../scripts/openapi-markdown.mjs';
import { useStack } from './kit/index.js';

/** docs/api-reference.md is the OpenAPI document as Markdown: it must say what the api really serves. */
describe('docs: the API reference is current', () => {
  const stack = useStack();

  it('matches the document the api serves (regenerate with `npm run docs:api`)', async () => {
    const document: unknown = (await stack.anonymous.get('/docs-json')).body;
    const committed = readFileSync(join(process.cwd(), 'docs', 'api-reference.md'), 'utf8');
    expect((renderReference as (doc: unknown) => string)(document)).toBe(committed);
  });

  it('lists every event type in docs/events.md as the catalogue declares it (`npm run docs:api`)', async () => {
    const document: unknown = (await stack.anonymous.get('/docs-json')).body;
    const committed = readFileSync(join(process.cwd(), 'docs', 'events.md'), 'utf8');
    const table = (renderEventsTable as (doc: unknown) => string)(document);
    expect((withEventsTable as (md: string, table: string) => string)(committed, table)).toBe(committed);
  });
});
