import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBffClient, IDEMPOTENT_POSTS } from '../libs/merchant-sdk/src/index.js';
import { isMerchantPath, NOT_MERCHANT_PATHS, renderSdkTypes } from '../scripts/sdk-types.mjs';
import { type Stack, startStack } from './support/api-kit.js';
import { documentedOperations, type OpenApiDocument, readOpenApiDocument } from './support/openapi-kit.js';
import { firstDifference } from './support/sdk-kit.js';

const SDK = join(process.cwd(), 'libs', 'merchant-sdk');

/**
 * The merchant SDK against the api's OpenAPI document as a running api serves it (`/docs-json`): its
 * checked-in types are what the document renders to, its version follows the API's, and its client
 * calls every merchant operation of the document, with an Idempotency-Key exactly on the creating POSTs.
 */
describe('merchant SDK: the types and the operations follow the OpenAPI document', () => {
  let stack: Stack;
  let document: OpenApiDocument & { info: { version: string } };

  beforeAll(async () => {
    stack = await startStack({ overrides: { LOG_LEVEL: 'silent' } });
    document = (await readOpenApiDocument(stack.api.url)) as typeof document;
  });
  afterAll(async () => {
    await stack?.close();
  });

  const merchantOperations = () =>
    documentedOperations(document)
      .filter((operation) => isMerchantPath(operation.path))
      .map((operation) => operation.key)
      .sort();

  it('has checked-in types equal to what /docs-json renders to (else: npm run sdk:generate)', async () => {
    const checkedIn = readFileSync(join(SDK, 'src', 'generated', 'openapi.ts'), 'utf8');
    const difference = firstDifference(
      ['checked in (libs/merchant-sdk/src/generated/openapi.ts)', checkedIn],
      ['rendered from /docs-json', await renderSdkTypes(document)],
    );
    expect(difference, `stale SDK types: run npm run sdk:generate; ${difference}`).toBeUndefined();
  });

  it('is versioned after the API: its major version is the document’s', () => {
    const { version } = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as { version: string };
    expect(version.split('.')[0]).toBe(document.info.version);
  });

  it('leaves out only routes that exist and are not the merchant’s: /admin, health, metrics, the receivers', () => {
    for (const path of Object.keys(NOT_MERCHANT_PATHS)) expect(document.paths).toHaveProperty([path]);
    const left = documentedOperations(document).filter((operation) => !isMerchantPath(operation.path));
    for (const operation of left)
      expect(operation.path).toMatch(/^\/(admin\/|health\/|metrics$|$)|^\/v1\/(webhooks|callbacks)\//);
    expect(merchantOperations().length).toBeGreaterThan(40);
  });

  it('calls every merchant operation of the document, and each of its methods calls one', async () => {
    const requests: { method: string; path: string; key: boolean; by: string }[] = [];
    let caller = '';
    const bff = createBffClient({
      baseUrl: 'http://sdk.test',
      token: 'mk_test',
      // Every request answered at once: an empty page, or one event on the stream.
      fetch: async (request) => {
        await request.arrayBuffer();
        if (request.headers.get('accept') === 'text/event-stream') {
          const event = { id: 'e1', type: 'consent.authorized', createdAt: '', userId: null, data: {} };
          return new Response(`id: 1\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`, {
            headers: { 'content-type': 'text/event-stream' },
          });
        }
        const page = { data: [], meta: { tracingId: 't', count: 0, nextCursor: null } };
        return Response.json(page);
      },
    });
    bff.raw.use({
      onRequest({ request, schemaPath }) {
        requests.push({
          method: request.method,
          path: schemaPath,
          key: request.headers.has('idempotency-key'),
          by: caller,
        });
      },
    });

    const methods = Object.entries(bff)
      .filter(([name]) => name !== 'raw')
      .flatMap(([name, value]: [string, unknown]) => [
        ...(typeof value === 'function' ? [[name, value] as const] : []),
        ...Object.entries(value as object)
          .filter(
            (entry): entry is [string, (...args: unknown[]) => unknown] => typeof entry[1] === 'function',
          )
          .map(([method, fn]) => [`${name}.${method}`, fn] as const),
      ]);
    for (const [name, method] of methods) {
      caller = name;
      // Ids (and bodies) as placeholders: the answer is canned, only the request made is looked at.
      const result = (method as (...args: unknown[]) => unknown)(...Array(method.length).fill('id-1'));
      await settle(result).catch(() => undefined);
    }

    const called = [...new Set(requests.map((r) => `${r.method} ${r.path}`))].sort();
    expect(called).toEqual(merchantOperations());
    const silent = methods.map(([name]) => name).filter((name) => !requests.some((r) => r.by === name));
    expect(silent, 'client methods that sent no request').toEqual([]);

    const documentedKeys = documentedOperations(document)
      .filter((operation) => isMerchantPath(operation.path) && operation.headers.includes('Idempotency-Key'))
      .map((operation) => operation.key)
      .sort();
    expect(IDEMPOTENT_POSTS.map((path) => `POST ${path}`).sort()).toEqual(documentedKeys);
    const sentKeys = [...new Set(requests.filter((r) => r.key).map((r) => `${r.method} ${r.path}`))].sort();
    expect(sentKeys).toEqual(documentedKeys);
  });
});

/** Whatever a client method answered, taken to its first request: a promise, a list's page, a stream's event. */
async function settle(result: unknown): Promise<void> {
  if (result instanceof Promise) {
    await result;
  } else if (typeof (result as { page?: unknown }).page === 'function') {
    await (result as { page(): Promise<unknown> }).page();
  } else if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
    for await (const _event of result as AsyncIterable<unknown>) break;
  }
}
