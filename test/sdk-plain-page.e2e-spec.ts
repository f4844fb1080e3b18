import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrityOf, sdkBundleFile } from '../scripts/sdk-bundle.mjs';
import { launchBrowser, screenshot } from './kit/browser-kit.js';
import { send, type Stack, uniqueName } from './kit/index.js';
import { startSdkShop } from './kit/sdk-shop.js';

/** docs/sdk.md's plain page, as a merchant copies it: its one `html` block. */
const DOC_PAGE = /```html\n([\s\S]*?)```/.exec(
  readFileSync(join(process.cwd(), 'docs', 'sdk.md'), 'utf8'),
)![1];
const DOC_HOST = 'https://bff.example.com';

/**
 * Issue 41: the SDK for plain pages. The api serves the bundle at a versioned path, to any origin, cached
 * for good; the docs' page, with only the api's address and a user put in, connects a bank and lists
 * transactions in Chromium, the browser checking the bundle against the hash the docs pin.
 */
describe('merchant SDK: a plain page with one module script, in Chromium', () => {
  let stack: Stack;
  let shop: FastifyInstance;
  let shopUrl: string;
  let browser: Browser;
  let merchantKey: string;
  let userId: string;

  beforeAll(async () => {
    const started = await startSdkShop('sdk_plain_page', () => userId);
    stack = started.stack;
    shop = started.server;
    shopUrl = started.url;
    merchantKey = started.merchant.apiKey.key;
    const user = await send(`${stack.api.url}/v1/users`, 'POST', {
      token: merchantKey,
      body: { reference: uniqueName('plain') },
    });
    userId = ((await user.json()) as { data: { id: string } }).data.id;

    const page = DOC_PAGE.replaceAll(DOC_HOST, stack.api.url).replaceAll('USER_ID', userId);
    shop.get('/', (_request, reply) => reply.type('text/html').send(page));
    await started.listen();
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await shop?.close();
    await stack?.close();
  });

  it('serves the bundle the docs pin, at its versioned path, to any origin, cached for good', async () => {
    const { name, file } = sdkBundleFile();
    const answer = await fetch(`${stack.api.url}/sdk/${name}`, {
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const bytes = Buffer.from(await answer.arrayBuffer());
    expect(bytes.equals(readFileSync(file))).toBe(true);
    // The docs' page pins this build's hash and names this path.
    expect(DOC_PAGE).toContain(`"${DOC_HOST}/sdk/${name}": "${integrityOf(bytes)}"`);
    expect(DOC_PAGE).toContain(`from '${DOC_HOST}/sdk/${name}'`);
    const other = await fetch(`${stack.api.url}/sdk/merchant-sdk@0.0.1.js`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain(name);
  });

  it('connects a bank and lists its transactions from the docs’ page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(shopUrl);
    await page.getByLabel('Search for your bank').fill('redirect');
    const bank = page.locator('bff-connect button.institution[data-institution-id="sandbox-redirect"]');
    await bank.click();
    await page.getByRole('button', { name: "Continue to your bank's website" }).click();
    await page.waitForURL(/\/sandbox\/bank\//);
    await page.click('button[name="decision"][value="approve"]');
    await page.waitForURL((url) => url.origin === shopUrl);
    await page.locator('#transactions li').first().waitFor({ timeout: 60_000 });
    const listed = await page.locator('#transactions li').allInnerTexts();
    expect(listed).toHaveLength(20);
    for (const line of listed) expect(line).toMatch(/^\d{4}-\d{2}-\d{2} -?\d+(\.\d+)? [A-Z]{3}$/);
    await screenshot(page, 'plain-page-transactions');
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('revalidates in the browser with revalidate: true: its own If-None-Match, the 304 answered kept', async () => {
    // A page of the api's own origin (the console's), where the answers' ETag is readable.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stack.api.url}/console/`);
    // Evaluated in the page (a string: this file has no DOM types).
    const seen = JSON.parse(
      await page.evaluate<string>(`(async () => {
        const { createBffClient } = await import('/sdk/${sdkBundleFile().name}');
        const exchanges = [];
        const bff = createBffClient({
          baseUrl: location.origin,
          token: ${JSON.stringify(merchantKey)},
          revalidate: true,
          fetch: async (request, init) => {
            const response = await fetch(request, init);
            exchanges.push([request.headers.get('if-none-match') !== null, response.status]);
            return response;
          },
        });
        const first = await bff.users.get(${JSON.stringify(userId)});
        const second = await bff.users.get(${JSON.stringify(userId)});
        return JSON.stringify({ first, second, exchanges });
      })()`),
    ) as { first: unknown; second: unknown; exchanges: unknown };
    expect(seen.exchanges).toEqual([
      [false, 200],
      [true, 304],
    ]);
    expect(seen.second).toEqual(seen.first);
    expect(seen.first).toMatchObject({ id: userId });
    await context.close();
  });
});
