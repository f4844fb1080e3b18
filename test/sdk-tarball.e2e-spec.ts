import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { createBffClient } from '../libs/merchant-sdk/src/index.js';
import {
  connectBank,
  createMerchant,
  eventually,
  SandboxHttp,
  upstreamConsentId,
  useStack,
} from './kit/index.js';
import { installSdk, packSdk, tsBlocks, TSC } from './kit/sdk-tarball-kit.js';

const run = promisify(execFile);

/**
 * A merchant backend's copy of a user's transactions, kept in a file with its cursor through the change
 * feed: each run applies only what changed since the last.
 */
const MIRROR_PROGRAM = `
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createBffClient } from '@open-banking-bff/merchant-sdk';

const [file, userId] = process.argv.slice(2);
const bff = createBffClient({ baseUrl: process.env.BFF_URL!, token: process.env.BFF_API_KEY! });
type Saved = { cursor?: string; records: Record<string, unknown> };
const saved: Saved = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { records: {} };
const copy = new Map(Object.entries(saved.records));
let cursor = saved.cursor;
let applied = 0;
for (let more = true; more; ) {
  const page = await bff.transactions.changes(userId, { cursor, limit: 500 });
  for (const { accountId, transaction } of [...page.added, ...page.modified])
    copy.set(\`\${accountId}/\${transaction.id}\`, transaction);
  for (const { accountId, id } of page.removed) copy.delete(\`\${accountId}/\${id}\`);
  applied += page.added.length + page.modified.length + page.removed.length;
  ({ nextCursor: cursor, hasMore: more } = page);
}
writeFileSync(file, JSON.stringify({ cursor, records: Object.fromEntries(copy) }));
console.log(JSON.stringify({ records: copy.size, applied }));
`;
const ROOT = process.cwd();

/** A frontend's use of the SDK, type-checked for browsers: DOM types only, no Node. */
const BROWSER_PROGRAM = `
import { type BffEvent, createBffClient, isBffError } from '@open-banking-bff/merchant-sdk';

export async function follow(baseUrl: string, userId: string, sessionToken: string): Promise<BffEvent[]> {
  const bff = createBffClient({ baseUrl, token: () => sessionToken });
  const events: BffEvent[] = [];
  const stream = bff.events.stream(userId, { lastEventId: localStorage.getItem('bff-last-event-id') ?? undefined });
  try {
    for await (const event of stream) {
      events.push(event);
      localStorage.setItem('bff-last-event-id', stream.lastEventId ?? '0');
      document.title = event.type;
    }
  } catch (error) {
    if (isBffError(error, 'EVENTS_EXPIRED')) localStorage.removeItem('bff-last-event-id');
    else throw error;
  }
  for await (const account of bff.accounts.list(userId)) document.body.append(account.id);
  return events;
}
`;

/**
 * The SDK as a merchant gets it: `npm pack`, installed into an empty project outside the repository, the
 * docs' example backend type-checked with `tsc --strict` against the installed package (and a browser
 * program against DOM types alone, and every `ts` block of docs/sdk.md), then run against a real stack (sandbox, api and worker on the ports
 * their public URLs name, as under `npm start`).
 */
describe('merchant SDK: the packed tarball in a fresh project', () => {
  const stack = useStack({
    ownDatabase: 'sdk_tarball',
    worker: true,
    publicPorts: true,
    overrides: { LOG_LEVEL: 'silent' },
  });
  let apiKey: string;
  let project: string;

  beforeAll(async () => {
    // A frontend origin on a port no default names: the example must send users back to the merchant's own.
    apiKey = (
      await createMerchant(stack.api, {
        frontendOrigins: ['http://localhost:5999', 'https://app.merchant.example'],
      })
    ).apiKey.key;
    project = mkdtempSync(join(tmpdir(), 'bff-sdk-'));
  }, 120_000);
  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('installs, type-checks the example backend, a browser program and the docs’ examples, and runs the backend', async () => {
    const tarball = await packSdk(project);
    const shipped = tarball.files.map((file) => file.path);
    expect(shipped).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(
      shipped.filter((path) => !path.startsWith('dist/') && !/^(package\.json|README\.md)$/.test(path)),
    ).toEqual([]);
    await installSdk(project, tarball);

    copyFileSync(join(ROOT, 'docs/examples/merchant-backend.ts'), join(project, 'merchant-backend.ts'));
    writeFileSync(join(project, 'mirror.ts'), MIRROR_PROGRAM);
    writeFileSync(join(project, 'browser.ts'), BROWSER_PROGRAM);
    const blocks = tsBlocks(readFileSync(join(ROOT, 'docs', 'sdk.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    blocks.forEach((block, i) => writeFileSync(join(project, `docs-${i + 1}.ts`), block));
    const compilerOptions = {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
    };
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, lib: ['ES2022'], types: ['node'], outDir: 'dist' },
        files: ['merchant-backend.ts', 'mirror.ts'],
      }),
    );
    writeFileSync(
      join(project, 'tsconfig.browser.json'),
      JSON.stringify({
        compilerOptions: {
          ...compilerOptions,
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: [],
          noEmit: true,
        },
        files: ['browser.ts'],
      }),
    );
    // docs/sdk.md's examples run in Node or in a browser: both sets of types.
    writeFileSync(
      join(project, 'tsconfig.docs.json'),
      JSON.stringify({
        compilerOptions: {
          ...compilerOptions,
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: ['node'],
          noEmit: true,
        },
        files: blocks.map((_, i) => `docs-${i + 1}.ts`),
      }),
    );
    // --strict, and the package's declarations checked too (no skipLibCheck).
    await run(TSC, ['-p', 'tsconfig.json', '--strict'], { cwd: project });
    await run(TSC, ['-p', 'tsconfig.browser.json', '--strict'], { cwd: project });
    await run(TSC, ['-p', 'tsconfig.docs.json', '--strict'], { cwd: project }).catch(
      (error: { stdout?: string; message: string }) => {
        throw new Error(`docs/sdk.md's examples do not type-check:\n${error.stdout ?? error.message}`);
      },
    );

    const { stdout } = await run(process.execPath, ['dist/merchant-backend.js'], {
      cwd: project,
      env: { ...process.env, BFF_URL: stack.api.url, BFF_API_KEY: apiKey, EXAMPLE_TIMEOUT_MS: '90000' },
      timeout: 120_000,
    });
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      userId: string;
      consentId: string;
      accountId: string;
      transactions: number;
      pages: number;
      mirrored: number;
      mirroredCurrent: number;
      streamed: string[];
      delivered: string[];
      lastEventId: string;
    };

    // What the example saw is what the api holds: every stored transaction, in pages of 100.
    const bff = createBffClient({ baseUrl: stack.api.url, token: apiKey });
    expect((await bff.users.get(summary.userId)).id).toBe(summary.userId);
    const stored = await bff.transactions(summary.accountId, { limit: 1000 }).toArray();
    expect(stored.length).toBeGreaterThan(100);
    expect(summary.transactions).toBe(stored.length);
    expect(summary.pages).toBeGreaterThanOrEqual(Math.ceil(stored.length / 100));
    // The change feed gave the example at least the current account's whole stored set (other accounts'
    // first syncs may still have been running), and never a record twice.
    expect(summary.mirroredCurrent).toBe(stored.length);
    expect(summary.mirrored).toBeGreaterThanOrEqual(stored.length);
    expect(summary.streamed[0]).toBe('consent.authorized');
    expect(summary.streamed).toContain('sync.succeeded');
    expect(Number(summary.lastEventId)).toBeGreaterThan(0);
    expect(summary.delivered).toEqual(expect.arrayContaining(['consent.authorized', 'sync.succeeded']));

    // A copy kept through the change feed across bank-side changes and a reconnect of the bank.
    const env = { ...process.env, BFF_URL: stack.api.url, BFF_API_KEY: apiKey };
    const mirror = async () =>
      JSON.parse(
        (await run(process.execPath, ['dist/mirror.js', 'copy.json', summary.userId], { cwd: project, env }))
          .stdout,
      ) as {
        records: number;
        applied: number;
      };
    const whenReady = async (consentId: string) =>
      eventually(`consent.synced of ${consentId}`, async () => {
        const events = await bff.events.list({ type: 'consent.synced', userId: summary.userId }).toArray();
        return events.some((e) => e.type === 'consent.synced' && e.data.consentId === consentId)
          ? true
          : undefined;
      });
    await whenReady(summary.consentId);
    expect((await mirror()).records).toBeGreaterThanOrEqual(stored.length);
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const bankConsent = await upstreamConsentId(stack, summary.consentId);
    const [account] = await stack.api.app.get(DatabasePool).rows<{ upstreamId: string }>({
      text: 'SELECT upstream_account_id AS "upstreamId" FROM accounts WHERE id = $1',
      values: [summary.accountId],
    });
    const bank = `/consents/${bankConsent}/accounts/${account.upstreamId}/transactions`;
    const [changed, removed] = stored;
    expect((await sandbox.admin('PATCH', `${bank}/${changed.id}`, { amount: -1.23 })).status).toBe(200);
    expect((await sandbox.admin('DELETE', `${bank}/${removed.id}`)).status).toBe(204);
    expect((await sandbox.admin('POST', bank, { amount: 4.56, description: 'mirror' })).status).toBe(201);
    const again = await connectBank(
      { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
      apiKey,
      summary.userId,
    );
    await whenReady(again);
    const { applied, records } = await mirror();
    expect(applied).toBeGreaterThanOrEqual(3);
    const copy = (
      JSON.parse(readFileSync(join(project, 'copy.json'), 'utf8')) as { records: Record<string, unknown> }
    ).records;
    const truth: Record<string, unknown> = {};
    for (const { id } of await bff.accounts.list(summary.userId).toArray())
      for (const record of await bff.transactions(id, { limit: 1000 }).toArray())
        truth[`${id}/${record.id}`] = record;
    expect(records).toBe(Object.keys(truth).length);
    expect(copy).toEqual(truth);
    expect(Object.keys(copy)).not.toContain(`${summary.accountId}/${removed.id}`);
  }, 300_000);
});
