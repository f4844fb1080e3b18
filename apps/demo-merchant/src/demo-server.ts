import { readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
// The SDK as a library of this repository: the root package does not depend on it by name (a merchant
// writes `from '@open-banking-bff/merchant-sdk'`).
import { BffError, createBffClient } from '#libs/merchant-sdk';
import { registerSdkAssets } from './sdk-assets.js';

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

/** The BFF's refusal as the page reads it: the envelope's code, message and tracingId. */
function refuse(reply: FastifyReply, error: unknown) {
  if (!(error instanceof BffError)) throw error;
  const { code, message, tracingId } = error;
  return reply.code(error.status || 502).send({ error: { code, message, tracingId } });
}

/** The page: its modules and style as files, and index.html with the SDK's import map written into it. */
function servePage(app: FastifyInstance, dir: string): void {
  // The page's modules and style; index.html is served apart, with the import map written into it.
  void app.register(fastifyStatic, {
    root: dir,
    index: false,
    decorateReply: false,
    allowedPath: (path) => /\.(js|css)$/.test(path),
    cacheControl: false,
    setHeaders: (reply) => {
      reply.header('cache-control', 'no-store');
    },
  });
  // The page imports the SDK by its package name, as a merchant's bundled page would; the browser finds
  // it through this import map, served from this origin (no bundler, no CDN).
  const importMap = JSON.stringify(registerSdkAssets(app));
  const page = readFileSync(join(dir, 'index.html'), 'utf8').replace(
    '<!-- importmap -->',
    `<script type="importmap">${importMap}</script>`,
  );
  app.get('/', (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page),
  );
}

/**
 * The demo merchant's backend: it serves the frontend, and does the few things only a merchant's own
 * backend may do with its API key: list and create customers, and mint a customer's session token. The
 * page does everything else itself, with that session, against the BFF (as a real merchant frontend).
 */
export function createDemoServer(options: DemoOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 });
  const dir = publicDir();
  // The backend's client: the merchant API key never leaves this process.
  const bff = createBffClient({ baseUrl: options.apiUrl, token: options.merchantApiKey });

  servePage(app, dir);

  // No icon: an empty answer rather than a 404 in every browser's console.
  app.get('/favicon.ico', (_request, reply) => reply.code(204).send());
  app.get('/demo/config', () => ({ apiUrl: options.apiUrl }));

  app.get('/demo/customers', async (_request, reply) => {
    try {
      // The first hundred are enough for a demo's picker.
      const { items, tracingId } = await bff.users.list({ limit: 100 }).page();
      return { data: items, meta: { tracingId } };
    } catch (error) {
      return refuse(reply, error);
    }
  });

  app.post<{ Body: { reference?: unknown } }>('/demo/customers', async (request, reply) => {
    const reference = request.body?.reference;
    if (typeof reference !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(reference)) {
      return reply.code(400).send({ error: { message: 'A customer reference: letters, digits, . _ -' } });
    }
    try {
      return reply.code(201).send({ data: await bff.users.create({ reference }) });
    } catch (error) {
      return refuse(reply, error);
    }
  });

  app.post<{ Params: { userId: string } }>('/demo/customers/:userId/session', async (request, reply) => {
    try {
      return reply.code(201).send({ data: await bff.sessions.create(request.params.userId) });
    } catch (error) {
      return refuse(reply, error);
    }
  });

  return app;
}
