#!/usr/bin/env node
// `npm run docs:api`: builds the api in-process (from dist/, so run after a build), reads its OpenAPI
// document and writes docs/api-reference.md. Needs Postgres and Redis reachable, as the api does.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReference } from './openapi-markdown.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { loadConfig } = await import(join(ROOT, 'dist/libs/config/src/index.js'));
const { createLogger } = await import(join(ROOT, 'dist/libs/observability/src/index.js'));
const { createApiApp } = await import(join(ROOT, 'dist/apps/api/src/bootstrap.js'));

const config = loadConfig({ ...process.env, API_PORT: '0', LOG_LEVEL: 'silent' });
const { app } = await createApiApp(config, createLogger({ level: 'silent', app: 'docs' }));
await app.listen({ host: '127.0.0.1', port: 0 });
try {
  const { port } = app.getHttpServer().address();
  const document = await (await fetch(`http://127.0.0.1:${port}/docs-json`)).json();
  const file = join(ROOT, 'docs', 'api-reference.md');
  writeFileSync(file, renderReference(document));
  console.log(`wrote ${file}`);
} finally {
  await app.close();
}
