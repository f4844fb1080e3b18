#!/usr/bin/env node
// `npm run docs:api`: reads the api's OpenAPI document (scripts/served-openapi.mjs) and writes
// docs/api-reference.md, and the list of event types in docs/events.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEventsTable, withEventsTable } from './events-table.mjs';
import { renderReference } from './openapi-markdown.mjs';
import { ROOT, servedOpenApiDocument } from './served-openapi.mjs';

const file = join(ROOT, 'docs', 'api-reference.md');
const document = await servedOpenApiDocument('docs');
writeFileSync(file, renderReference(document));
console.log(`wrote ${file}`);
const events = join(ROOT, 'docs', 'events.md');
writeFileSync(events, withEventsTable(readFileSync(events, 'utf8'), renderEventsTable(document)));
console.log(`wrote the event types of ${events}`);
