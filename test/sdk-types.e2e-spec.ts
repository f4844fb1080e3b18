import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBffClient, IDEMPOTENT_POSTS } from '../libs/merchant-sdk/src/index.js';
import {
  isMerchantPath,
  isOperatorPath,
  NOT_MERCHANT_PATHS,
  renderOperatorTypes,
  renderSdkTypes,
} from '../scripts/sdk-types.mjs';
import { useStack } from './kit/index.js';
import { documentedOperations, type OpenApiDocument, readOpenApiDocument } from './kit/openapi-kit.js';
import { firstDifference } from './kit/sdk-kit.js';

const SDK = join(process.cwd(), 'libs', 'merchant-sdk');

/**
 * The merchant SDK against the api's OpenAPI document as a running api serves it (`/docs-json`): its
 * checked-in types are what the document renders to, its version follows the API's, and its client
 * calls every merchant operation of the document, with an Idempotency-Key exactly on the creating POSTs.
 */
describe('merchant SDK: the types and the operations follow the OpenAPI document', () => {
  const stack = useStack({ overrides: { LOG_LEVEL: 'silent' } });
  let document: OpenApiDocument & { info: { version: string } };

  beforeAll(async () => {
    document = (await readOpenApiDocument(stack.api.url)) as typeof document;
  });

  const merchantOperations = () =>
    documentedOperations(document)
      .filter((operation) => isMerchantPath(operation.path))
      // Served to another kind of client (the MCP server: an MCP client's), declared so on the route.
      .filter((operation) => operation.operation['x-sdk'] === undefined)
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

  it('has console operator types equal to what /docs-json renders to, for every /admin route', async () => {
    const file = join(process.cwd(), 'apps', 'api', 'console', 'generated', 'operator-api.d.ts');
    const difference = firstDifference(
      ['checked in (apps/api/console/generated/operator-api.d.ts)', readFileSync(file, 'utf8')],
      ['rendered from /docs-json', await renderOperatorTypes(document)],
    );
    expect(difference, `stale console types: run npm run sdk:generate; ${difference}`).toBeUndefined();
    const operatorPaths = Object.keys(document.paths).filter(isOperatorPath);
    expect(operatorPaths.filter((path) => path.startsWith('/admin/')).length).toBeGreaterThan(15);
  });

  it('is versioned after the API: its major version is the document’s', () => {
    const { version } = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as { version: string };
    expect(version.split('.')[0]).toBe(document.info.version);
  });

  it('leaves out only routes that exist and are not the merchant’s: /admin, health, metrics, the receivers, the SDK itself, the console’s sign-in', () => {
    for (const path of Object.keys(NOT_MERCHANT_PATHS)) expect(document.paths).toHaveProperty([path]);
    const left = documentedOperations(document).filter((operation) => !isMerchantPath(operation.path));
    for (const operation of left)
      expect(operation.path).toMatch(
        /^\/(admin\/|health(\/|$)|metrics$|sdk\/\{file\}$|console\/session$|$)|^\/v1\/(webhooks|callbacks)\//,
      );
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

  it('types what the api always sends as present: a merchant reads it under --strict without a guard', async () => {
    // The program compiles against the SDK as checked in, with no error at all.
    expect(strictErrors(MERCHANT_READS)).toEqual([]);
    // And it depends on those fields being required: against the same document with every output's
    // fields optional (the SDK of issue 37, item 4), each marked line, and only those, fails.
    const loose = await renderSdkTypes(withOptionalOutputs(document));
    const failing = new Set(strictErrors(MERCHANT_READS, loose).map((error) => error.line));
    const marked = MERCHANT_READS.split('\n').flatMap((line, i) =>
      line.includes(ALWAYS_SENT) ? [i + 1] : [],
    );
    expect(marked.length).toBeGreaterThan(15);
    expect([...failing].sort((a, b) => a - b)).toEqual(marked);
  });
});

const ALWAYS_SENT = '// always sent';

/**
 * A merchant's program that reads, with no guard, what the api always sends: of the caller, a user, a
 * consent as created (both flows) or changed and the list of them, accounts with their balances and sync state, and transactions stored,
 * live (through the client's method and through the typed `GET` of the client underneath) and
 * categorised. `string | null` is read as such: a field that can be null is still always there.
 */
const MERCHANT_READS = `import { createBffClient } from '@open-banking-bff/merchant-sdk';

const bff = createBffClient({ baseUrl: 'https://bff.example.com', token: 'mk_example' });
const text = (value: string): string => value;
const maybe = (value: string | null): string => value ?? '-';

export async function report(userId: string, consentId: string, accountId: string): Promise<string[]> {
  const lines: string[] = [];
  const me = await bff.me();
  lines.push(text(me.kind), text(me.merchantId)); ${ALWAYS_SENT}
  const user = await bff.users.get(userId);
  lines.push(text(user.id), text(user.reference), text(user.createdAt), String(user.vopOptOut.valueOf())); ${ALWAYS_SENT}
  const created = await bff.consents.create(userId, {
    institutionId: 'sandbox-redirect',
    redirectUrl: 'https://app.example/back',
  });
  lines.push(text(created.authorisationUrl), text(created.expiresAt)); ${ALWAYS_SENT}
  const embedded = await bff.consents.createEmbedded(userId, {
    institutionId: 'sandbox-embedded',
    credentials: { id: 'user', password: 'secret' },
  });
  lines.push(text(embedded.status), text(embedded.expiresAt)); ${ALWAYS_SENT}
  const terms = await bff.consents.updatePreAuthorisation(consentId, { scopes: ['ACCOUNTS'] });
  lines.push(text(terms.expiresAt), terms.featureScope.join()); ${ALWAYS_SENT}
  const consent = await bff.consents.get(consentId);
  lines.push(text(consent.id), text(consent.status), text(consent.institutionId), consent.featureScope.join()); ${ALWAYS_SENT}
  lines.push(maybe(consent.expiresAt), maybe(consent.authorizedAt), maybe(consent.revokedAt)); ${ALWAYS_SENT}
  for await (const listed of bff.consents.list(userId)) {
    lines.push(text(listed.kind), text(listed.upstreamConsentId), text(listed.createdAt)); ${ALWAYS_SENT}
  }
  for await (const account of bff.accounts.list(userId)) {
    lines.push(text(account.id), text(account.consentId), text(account.upstreamAccountId)); ${ALWAYS_SENT}
    lines.push(maybe(account.type), maybe(account.currency), maybe(account.nickname)); ${ALWAYS_SENT}
    lines.push(text(account.sync.status), maybe(account.sync.lastSyncedAt), maybe(account.sync.nextSyncAt)); ${ALWAYS_SENT}
    for (const { type, balance, dateTime } of account.balances) { ${ALWAYS_SENT}
      lines.push(text(type), text(balance.amount), text(balance.currency), maybe(dateTime)); ${ALWAYS_SENT}
    }
  }
  const account = await bff.accounts.get(accountId);
  lines.push(text(account.institutionId), text(account.updatedAt)); ${ALWAYS_SENT}
  for await (const tx of bff.transactions(accountId, { limit: 100 })) {
    lines.push(text(tx.id), text(tx.date), text(tx.amount), text(tx.currency)); ${ALWAYS_SENT}
  }
  for await (const tx of bff.transactions.live(accountId)) {
    lines.push(text(tx.id), text(tx.date), text(tx.amount), text(tx.currency)); ${ALWAYS_SENT}
  }
  const live = await bff.raw.GET('/v1/accounts/{accountId}/transactions/live', {
    params: { path: { accountId } },
  });
  for (const tx of live.data?.data ?? []) {
    lines.push(text(tx.id), text(tx.date), text(tx.amount), text(tx.currency)); ${ALWAYS_SENT}
  }
  const categorised = await bff.transactions.categorise(accountId, { categorisationType: 'consumer' });
  for (const tx of categorised.transactions) { ${ALWAYS_SENT}
    lines.push(text(tx.id), text(tx.amount), text(tx.currency)); ${ALWAYS_SENT}
  }
  return lines;
}
`;

/** The document with no field of any output schema required, at any depth (envelopes and inputs kept). */
function withOptionalOutputs(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  const loosen = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(loosen);
    else if (node && typeof node === 'object') {
      const schema = node as Record<string, unknown>;
      if (schema.properties && Array.isArray(schema.required)) delete schema.required;
      Object.values(schema).forEach(loosen);
    }
  };
  for (const [name, schema] of Object.entries(copy.components?.schemas ?? {}))
    if (name.endsWith('Output')) loosen(schema);
  return copy;
}

/**
 * `program`'s type errors under `--strict` against the merchant SDK's source (as the package name
 * imports it), with `generatedTypes` in place of libs/merchant-sdk/src/generated/openapi.ts when given.
 */
function strictErrors(program: string, generatedTypes?: string): { line: number; message: string }[] {
  const file = join(process.cwd(), 'test', 'merchant-reads.virtual.ts');
  const virtual = new Map([[file, program]]);
  if (generatedTypes !== undefined) virtual.set(join(SDK, 'src', 'generated', 'openapi.ts'), generatedTypes);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    paths: { '@open-banking-bff/merchant-sdk': [join(SDK, 'src', 'index.ts')] },
  };
  const host = ts.createCompilerHost(options);
  const [fileExists, readFile, getSourceFile] = [
    host.fileExists.bind(host),
    host.readFile.bind(host),
    host.getSourceFile.bind(host),
  ];
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(name);
    return text === undefined
      ? getSourceFile(name, language, ...rest)
      : ts.createSourceFile(name, text, language);
  };
  const compiled = ts.createProgram([file], options, host);
  const source = compiled.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(compiled, source).map((diagnostic) => ({
    line: diagnostic.file ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1 : 0,
    message: `${diagnostic.file?.fileName ?? ''} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
  }));
}

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
