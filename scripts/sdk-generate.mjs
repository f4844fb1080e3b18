#!/usr/bin/env node
// `npm run sdk:generate`: builds the api in-process (from dist/, so run after a build), reads its OpenAPI
// document and writes the merchant SDK's types, libs/merchant-sdk/src/generated/openapi.ts. Needs Postgres
// and Redis reachable, as the api does (the same way as `npm run docs:api`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSdkTypes } from './sdk-types.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { loadConfig } = await import(join(ROOT, 'dist/libs/config/src/index.js'));
const { createLogger } = await import(join(ROOT, 'dist/libs/observability/src/index.js'));
const { createApiApp } = await import(join(ROOT, 'dist/apps/api/src/bootstrap.js'));

const config = loadConfig({ ...process.env, API_PORT: '0', LOG_LEVEL: 'silent' });
const { app } = await createApiApp(config, createLogger({ level: 'silent', app: 'sdk' }));
await app.listen({ host: '127.0.0.1', port: 0 });
try {
  const { port } = app.getHttpServer().address();
  const document = await (await fetch(`http://127.0.0.1:${port}/docs-json`)).json();
  const file = join(ROOT, 'libs', 'merchant-sdk', 'src', 'generated', 'openapi.ts');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, await renderSdkTypes(document));
  console.log(`wrote ${file}`);
} finally {
  await app.close();
}
