// The api's OpenAPI document exactly as a running api serves it at /docs-json: the api built in-process
// from dist/ (so run after a build), on a free local port, closed again. Needs Postgres and Redis
// reachable, as the api does. Used by `npm run docs:api` and `npm run sdk:generate`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The document; `app` names the process in its (silent) logs. */
export async function servedOpenApiDocument(app) {
  const { loadConfig } = await import(join(ROOT, 'dist/libs/config/src/index.js'));
  const { createLogger } = await import(join(ROOT, 'dist/libs/observability/src/index.js'));
  const { createApiApp } = await import(join(ROOT, 'dist/apps/api/src/bootstrap.js'));
  const config = loadConfig({ ...process.env, API_PORT: '0', LOG_LEVEL: 'silent' });
  const api = (await createApiApp(config, createLogger({ level: 'silent', app }))).app;
  await api.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = api.getHttpServer().address();
    return await (await fetch(`http://127.0.0.1:${port}/docs-json`)).json();
  } finally {
    await api.close();
  }
}
