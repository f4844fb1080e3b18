import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { send } from './api-client.js';
import { type Stack, startStack } from './api-kit.js';
import { type CreatedMerchant, createMerchant } from './factories.js';
import { freePort } from './running-apps.js';

export interface SdkShop {
  /** The stack the shop's pages call: public ports, so a browser reaches it, and a worker syncing. */
  stack: Stack;
  /** The shop's origin, which its merchant lists in frontendOrigins. */
  url: string;
  server: FastifyInstance;
  merchant: CreatedMerchant;
  /** Starts serving, once the caller has added its page. */
  listen: () => Promise<string>;
}

/**
 * A merchant's shop for the SDK's pages in a browser, on an origin of its own that its merchant lists.
 * Its backend (`POST /session`) alone holds the API key and mints the session of the user `userId` names
 * at the time: a test may change users between pages.
 */
export async function startSdkShop(ownDatabase: string, userId: () => string): Promise<SdkShop> {
  const stack = await startStack({
    ownDatabase,
    worker: true,
    publicPorts: true,
    overrides: { LOG_LEVEL: 'silent' },
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const merchant = await createMerchant(stack.api, { frontendOrigins: [url] }).catch(async (error) => {
    await stack.close();
    throw error;
  });
  const server = Fastify({ logger: false });
  server.get('/favicon.ico', (_request, reply) => reply.code(204).send());
  server.post('/session', async () => {
    const response = await send(`${stack.api.url}/v1/users/${userId()}/sessions`, 'POST', {
      token: merchant.apiKey.key,
    });
    return ((await response.json()) as { data: { token: string } }).data;
  });
  return { stack, url, server, merchant, listen: () => server.listen({ host: '127.0.0.1', port }) };
}

/**
 * The SDK as `npm run sdk:build` makes it, built into a directory of its own for one test file (dist/ may be
 * rebuilt meanwhile); the caller removes it.
 */
export function buildSdkForPages(): string {
  const sdkDist = mkdtempSync(join(tmpdir(), 'bff-sdk-'));
  execFileSync(process.execPath, [
    join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'libs/merchant-sdk/tsconfig.json',
    '--outDir',
    sdkDist,
  ]);
  return sdkDist;
}
