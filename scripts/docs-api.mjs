#!/usr/bin/env node
// `npm run docs:api`: reads the api's OpenAPI document (scripts/served-openapi.mjs) and writes
// docs/api-reference.md.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderReference } from './openapi-markdown.mjs';
import { ROOT, servedOpenApiDocument } from './served-openapi.mjs';

const file = join(ROOT, 'docs', 'api-reference.md');
writeFileSync(file, renderReference(await servedOpenApiDocument('docs')));
console.log(`wrote ${file}`);
