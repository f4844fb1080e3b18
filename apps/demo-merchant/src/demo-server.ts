import { readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';

/** What the demo merchant's backend needs: where the BFF is, its own API key, and where it is served. */
export interface DemoOptions {
  apiUrl: string;
  merchantApiKey: string;
}

/** The frontend's files, from the source tree (the same in `npm start`, the tests and a built dist/). */
function publicDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const distAt = here.indexOf(`${sep}dist${sep}`);
  const root = distAt >= 0 ? here.slice(0, distAt) : resolve(here, '../../..');
  return join(root, 'apps', 'demo-merchant', 'public');
}

const FILES: Record<string, string> = {
  '/': 'index.html',
  '/app.js': 'app.js',
  '/charts.js': 'charts.js',
  '/app.css': 'app.css',
};
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/**
 * The demo merchant's backend: it serves the frontend, and does the few things only a merchant's own
 * backend may do with its API key: list and create customers, and mint a customer's session token. The
 * page does everything else itself, with that session, against the BFF (as a real merchant frontend).
 */
export function createDemoServer(options: DemoOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 });
  const dir = publicDir();
  const files = new Map(Object.entries(FILES).map(([path, file]) => [path, readFileSync(join(dir, file))]));

  for (const [path, body] of files) {
    const type = TYPES[FILES[path].split('.').pop()!];
    app.get(path, (_request, reply) => reply.type(type).header('cache-control', 'no-store').send(body));
  }

  const bff = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${options.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.merchantApiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  // No icon: an empty answer rather than a 404 in every browser's console.
  app.get('/favicon.ico', (_request, reply) => reply.code(204).send());
  app.get('/demo/config', () => ({ apiUrl: options.apiUrl }));

  app.get('/demo/customers', async (_request, reply) => {
    const answer = await bff('GET', '/v1/users?limit=100');
    return reply.code(answer.status).send(answer.body);
  });

  app.post<{ Body: { reference?: unknown } }>('/demo/customers', async (request, reply) => {
    const reference = request.body?.reference;
    if (typeof reference !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(reference)) {
      return reply.code(400).send({ error: { message: 'A customer reference: letters, digits, . _ -' } });
    }
    const answer = await bff('POST', '/v1/users', { reference });
    return reply.code(answer.status).send(answer.body);
  });

  app.post<{ Params: { userId: string } }>('/demo/customers/:userId/session', async (request, reply) => {
    const answer = await bff('POST', `/v1/users/${encodeURIComponent(request.params.userId)}/sessions`);
    return reply.code(answer.status).send(answer.body);
  });

  return app;
}
