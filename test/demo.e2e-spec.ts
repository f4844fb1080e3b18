import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, ConsoleMessage, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDemoServer } from '../apps/demo-merchant/src/demo-server.js';
import { launchBrowser, screenshot, untilShown } from './kit/browser-kit.js';
import {
  createMerchant,
  freePort,
  send,
  type Stack,
  startStack,
  tuned,
  uniqueName,
  WAIT,
} from './kit/index.js';

/** "-22.48" → -2248, with string arithmetic only: the expected totals never go through a float. */
const minor = (amount: string) => {
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const value = Number(whole) * 100 + Number((fraction + '00').slice(0, 2));
  return amount.startsWith('-') ? -value : value;
};

/**
 * The one console error the walk provokes on purpose: Chromium reports a fetch answered 4xx as "Failed to
 * load resource", and the VRP payment over the limit is answered 422 (the page shows the refusal).
 */
const expectedRefusal = (message: ConsoleMessage) =>
  message.text().includes('status of 422') &&
  /\/v1\/vrp\/consents\/[^/]+\/payments$/.test(message.location().url);

/**
 * The demo merchant app in a real Chromium (Debian's, driven by playwright-core): a person's way through
 * the product, against the sandbox, the api and a worker on a database of their own. The page runs on
 * the merchant SDK, served to the browser through an import map, and connects banks with its
 * <bff-connect>. Each step leaves a screenshot in test-artifacts/demo/, and none may log an error.
 */
describe('demo merchant app, in a browser', () => {
  let stack: Stack;
  let demo: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let bff: string;
  let demoUrl: string;
  let merchantKey: string;
  /** Every URL the page asked for, to find calls made with an id the page never had. */
  const requested: string[] = [];
  /** What the browser logged as an error, or threw, in any page of the walk (the bank's too). */
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    // The page loads the SDK's build, as a merchant's would (`npm test` builds it first).
    if (!existsSync(join('libs', 'merchant-sdk', 'dist', 'connect', 'index.js'))) {
      throw new Error('The demo serves libs/merchant-sdk/dist: run `npm run sdk:build` first.');
    }
    const demoPort = await freePort();
    demoUrl = `http://127.0.0.1:${demoPort}`;
    stack = await startStack({
      ownDatabase: 'demo',
      worker: true,
      publicPorts: true,
      overrides: { LOG_LEVEL: 'silent', DEMO_PUBLIC_URL: demoUrl, ...tuned({ paymentStatusPollSeconds: 1 }) },
    });
    bff = stack.api.url;
    const merchant = await createMerchant(stack.api, { frontendOrigins: [demoUrl] });
    merchantKey = merchant.apiKey.key;
    demo = createDemoServer({ apiUrl: bff, merchantApiKey: merchantKey });
    await demo.listen({ host: '127.0.0.1', port: demoPort });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' && !expectedRefusal(message))
        consoleErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${error.name}: ${error.message}`));
  }, 120_000);

  // Each step ends with a clean console: an import the browser could not load, an uncaught failure…
  afterEach(() => {
    expect(consoleErrors.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await stack?.close();
  });

  /** The merchant's own view of its data (its API key), to hold the page's figures against. */
  const asMerchant = async (path: string) => {
    const response = await send(`${bff}${path}`, 'GET', { token: merchantKey });
    return (await response.json()) as { data: any; links?: { next?: string } };
  };
  /** The SDK's <bff-connect> in the page, and one of the banks it lists (in its shadow root). */
  const connect = (): Locator => page.locator('bff-connect');
  const bank = (id: string) => connect().locator(`button.institution[data-institution-id="${id}"]`);
  /** A call of the developer panel's, answered 2xx, with the API's tracingId (a UUID). */
  const expectCall = async (method: string, path: RegExp) => {
    // A row's inner text is its cells', tab-separated.
    const rows = await page.locator('#calls tbody tr').allInnerTexts();
    const calls = rows.map((row) => row.split('\t'));
    const found = calls.find(([m, p, status]) => m === method && path.test(p) && /^20\d$/.test(status));
    expect(found, `${method} ${String(path)} in ${JSON.stringify(calls)}`).toBeDefined();
    expect(found![3]).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/);
  };
  const approveAtBank = async () => {
    await page.waitForURL(/\/sandbox\/bank\//);
    await page.click('button[name="decision"][value="approve"]');
    await page.waitForURL((url) => url.origin === demoUrl);
  };

  it('creates a customer and connects a bank through <bff-connect> and its page, then watches the first sync to the end', async () => {
    await page.goto(demoUrl);
    await page.fill('#customer-new', uniqueName('alice'));
    await page.click('#customer-create');
    await page.waitForSelector('#connect:not([hidden])');
    await bank('sandbox-redirect').waitFor();
    // Nothing to pay with yet: no pay button, whatever the row's own layout.
    expect(await page.isVisible('#vrp-pay-row')).toBe(false);
    expect(await page.isVisible('#vrp-pay')).toBe(false);
    // Each bank says how it connects: its own website, or signing in here.
    const flows = (id: string) => bank(id).locator('[part="institution-flows"]').textContent();
    expect(await flows('sandbox-redirect')).toMatch(/website/i);
    expect(await flows('sandbox-embedded')).toMatch(/sign in here/i);
    // The search narrows the list (the BFF's `q`).
    await connect().getByLabel('Search for your bank').fill('embedded');
    await untilShown('the search narrowed to one bank', async () => {
      expect(await connect().locator('button.institution').count()).toBe(1);
    });
    await bank('sandbox-embedded').waitFor();
    await connect().getByLabel('Search for your bank').fill('');
    await bank('sandbox-redirect').waitFor();
    await expectCall('GET', /^\/v1\/institutions\?.*q=embedded/);
    await screenshot(page, '01-customer');

    await bank('sandbox-redirect').click();
    await connect().locator('button[data-flow="REDIRECT"]').click();
    await approveAtBank();
    // The component reads the way back itself, says so, and takes ?consentId=&status= off the address.
    await untilShown('the redirect connection shown authorised', async () => {
      expect(await page.textContent('#connect-status')).toBe(
        'Bank connection (sandbox-redirect): AUTHORIZED',
      );
    });
    await connect().getByRole('heading', { name: 'Bank connected' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.waitForSelector('#sync-status[data-done="true"]', { timeout: 90_000 });
    const status = (await page.textContent('#sync-status')) ?? '';
    expect(status).toMatch(/^3 of 3 accounts synced; \d+ transactions stored by the first syncs$/);
    expect(await page.locator('#accounts .account').count()).toBe(3);
    // The panel reports the connection's first syncs (consent.synced), not a sync it asked for: their
    // figure is every transaction stored, and the page asked for no sync itself.
    // The page keeps its customer where a reload finds it (the test's own code is typed without the DOM).
    const customerId = String(await page.evaluate('JSON.parse(sessionStorage.getItem("customer")).id'));
    const accounts = (await asMerchant(`/v1/users/${customerId}/accounts`)).data as { id: string }[];
    let stored = 0;
    for (const account of accounts) {
      let next: string | undefined = `/v1/accounts/${account.id}/transactions?limit=1000`;
      while (next) {
        const answer = await asMerchant(next);
        stored += (answer.data as unknown[]).length;
        next = answer.links?.next;
      }
    }
    expect(Number(/(\d+) transactions stored/.exec(status)![1])).toBe(stored);
    const calls = await page.locator('#calls tbody tr').allInnerTexts();
    expect(calls.some((row) => /^POST\t\/v1\/accounts\/[^/]+\/sync/.test(row))).toBe(false);
    // The developer panel lists every call, the component's as well as the page's own client's.
    await expectCall('GET', /^\/v1\/consents\/[^/?]+$/); // <bff-connect> reading the way back
    await expectCall('GET', /^\/v1\/users\/[^/]+\/accounts/);
    await expectCall('GET', /^\/v1\/users\/[^/]+\/events \(SSE\)$/);
    await screenshot(page, '02-first-sync');
  });

  it('shows the transactions, pages through them, and marks the pending ones', async () => {
    const rows = page.locator('#tx-table tbody tr');
    await untilShown('the first page of transactions', async () => {
      expect(await rows.count()).toBe(25);
    });
    await page.click('#tx-more');
    await untilShown('the second page of transactions', async () => {
      expect(await rows.count()).toBe(50);
    });
    const amounts = await page.locator('#tx-table tbody td.num').allTextContents();
    for (const amount of amounts) expect(amount).toMatch(/^-?£[\d,]+\.\d{2}$/);
    await screenshot(page, '03-transactions');
  });

  it('draws spending per month with the same totals as the stored transactions', async () => {
    await page.waitForSelector('#svg-month .bar');
    const accountId = await page.inputValue('#tx-account');
    const now = new Date();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString();
    const expected = new Map<string, number>();
    let path: string | undefined =
      `/v1/accounts/${accountId}/transactions?limit=1000&from=${encodeURIComponent(from)}`;
    while (path) {
      const answer = await asMerchant(path);
      for (const t of answer.data as { date: string; amount: string }[]) {
        const value = minor(t.amount);
        if (value < 0) expected.set(t.date.slice(0, 7), (expected.get(t.date.slice(0, 7)) ?? 0) - value);
      }
      path = answer.links?.next;
    }
    const bars = await page
      .locator('#svg-month .bar')
      .evaluateAll((gs) =>
        gs.map((g) => [g.getAttribute('data-label'), Number(g.getAttribute('data-total-minor'))]),
      );
    expect(bars).toHaveLength(12);
    for (const [month, total] of bars) expect(total, String(month)).toBe(expected.get(String(month)) ?? 0);
    expect([...expected.values()].some((v) => v > 0)).toBe(true);
    await page.waitForSelector('#svg-category .bar');
    await page.waitForSelector('#svg-balance polyline');
    await page.locator('#pictures').scrollIntoViewIfNeeded();
    await screenshot(page, '04-charts');
  });

  it('connects a second bank the embedded way through <bff-connect>: credentials, SCA method, code', async () => {
    await connect().getByRole('button', { name: 'Connect another bank' }).click();
    // A bank without a page of its own offers no way there: only signing in here.
    await bank('sandbox-embedded').click();
    expect(await connect().locator('button[data-flow="REDIRECT"]').count()).toBe(0);
    await connect().locator('button[data-flow="EMBEDDED"]').click();
    await connect().getByLabel('User ID').fill('jane');
    await connect().getByLabel('Password').fill('secret');
    await connect().getByRole('button', { name: 'Continue' }).click();
    await connect().locator('button[data-method]').first().click();
    await connect().getByLabel('Code from your bank').fill('123456');
    await connect().getByRole('button', { name: 'Confirm' }).click();
    await untilShown(
      'the embedded connection shown authorised',
      async () => {
        expect(await page.textContent('#connect-status')).toBe(
          'Bank connection (sandbox-embedded): AUTHORIZED',
        );
      },
      WAIT.work,
    );
    // On `connected` the page goes on as after a redirect: the new bank's accounts, synced.
    await untilShown(
      'every account of the new bank synced, as the page says',
      async () => {
        const text = (await page.textContent('#sync-status')) ?? '';
        const [, done, all] = /^(\d+) of (\d+) accounts synced/.exec(text) ?? [];
        expect(Number(all) > 3 && done === all).toBe(true);
      },
      WAIT.pageSync,
    );
    await screenshot(page, '05-embedded');
  });

  it('sets up sweeping VRP and shows the headroom, then the refusal when a payment would break the limit', async () => {
    await page.fill('#vrp-max', '20.00');
    await page.fill('#vrp-month', '25.00');
    await page.click('#vrp-setup');
    await approveAtBank();
    await untilShown('the VRP consent shown authorised', async () => {
      expect(await page.textContent('#vrp-status')).toContain('AUTHORIZED');
    });
    // The page is new after the bank: the limits shown, in the headroom and the form, are the consent's own.
    await untilShown("the VRP consent's own limits shown", async () => {
      expect(await page.textContent('#vrp-headroom')).toBe(
        'max £20.00 a payment; £25.00 a month: paid £0.00, headroom £25.00',
      );
      expect([await page.inputValue('#vrp-max'), await page.inputValue('#vrp-month')]).toEqual([
        '20.00',
        '25.00',
      ]);
    });
    for (const [paid, headroom] of [
      ['£10.00', '£15.00'],
      ['£20.00', '£5.00'],
    ]) {
      await page.click('#vrp-pay');
      await untilShown('the headroom after a VRP payment', async () => {
        expect(await page.textContent('#vrp-headroom')).toContain(`paid ${paid}, headroom ${headroom}`);
      });
    }
    await page.click('#vrp-pay');
    await untilShown('the VRP payment over the limit refused', async () => {
      expect(await page.textContent('#vrp-status')).toBe(
        'Refused: exceeds periodicLimits[0] (MONTHLY): 5.00 left',
      );
    });
    await screenshot(page, '06-vrp-refused');
  });

  it('takes a single payment through the bank page and shows its status change live', async () => {
    await page.click('#single-pay');
    await approveAtBank();
    const single = page.locator('#payment-table tbody tr', { hasText: 'SINGLE' }).first();
    await untilShown('the single payment shown completed, in its row and in the line about it', async () => {
      expect(await single.locator('.payment-status').textContent()).toBe('COMPLETED');
      expect(await page.textContent('#vrp-status')).toBe('Payment COMPLETED');
    });
    await screenshot(page, '07-single-payment');
  });

  it('says which sandbox bank fails on purpose, and counts days as a person does', async () => {
    expect(await page.locator('#flaky-note').isVisible()).toBe(true);
    expect(await page.textContent('#flaky-note')).toContain(
      'Sandbox Flaky Bank fails a share of its calls on purpose',
    );
    await bank('sandbox-flaky').waitFor();
    // As text: vitest would rewrite an import() written in this file.
    const counted = await page.evaluate('import("/ui.js").then((ui) => [0, 1, 2, 90].map(ui.dayCount))');
    expect(counted).toEqual(['0 days', '1 day', '2 days', '90 days']);
  });

  it('revokes the bank consent, and its transactions stay readable', async () => {
    const row = page.locator('#consent-table tbody tr', { hasText: 'sandbox-redirect' });
    await row.locator('button.revoke').click();
    await untilShown('the consent shown revoked', async () => {
      expect(await row.textContent()).toContain('REVOKED');
    });
    await page.click('#tx-apply');
    await untilShown("the revoked consent's transactions", async () => {
      expect(await page.locator('#tx-table tbody tr').count()).toBe(25);
    });
    await screenshot(page, '08-revoked-still-readable');
  });

  it('fits a phone: one column, the page before the developer panel, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(demoUrl);
    await page.waitForSelector('#connect:not([hidden])');
    // Measured once the page has filled in: <bff-connect> listing its banks, the sync followed to the end.
    await bank('sandbox-redirect').waitFor();
    await page.waitForSelector('#sync-status[data-done="true"]', { timeout: 30_000 });
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth).toBeLessThanOrEqual(390);
    // Both boxes in one go: the page may still grow (a refresh after an event) between two measurements.
    const [mainBottom, panelTop, panelWidth] = await page.evaluate<number[]>(`(() => {
      const main = document.querySelector('main').getBoundingClientRect();
      const panel = document.querySelector('#devpanel').getBoundingClientRect();
      return [main.bottom, panel.top, panel.width];
    })()`);
    expect(panelTop).toBeGreaterThanOrEqual(mainBottom);
    expect(panelWidth).toBeLessThanOrEqual(390);
    const component = (await connect().boundingBox())!;
    expect(component.x + component.width).toBeLessThanOrEqual(390);
    await screenshot(page, '09-phone');
    // No call of the whole walk went out with an id the page did not have.
    expect(requested.filter((url) => /\/(null|undefined)(\/|$|\?)/.test(url))).toEqual([]);
  });
});
