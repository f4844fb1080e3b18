import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, uniqueName } from '#libs/testing';
import { createDemoServer } from '../apps/demo-merchant/src/demo-server.js';
import { send, type Stack, startStack } from './support/api-kit.js';
import { launchBrowser, screenshot } from './support/browser-kit.js';
import { freePort } from './support/running-apps.js';

/** "-22.48" → -2248, with string arithmetic only: the expected totals never go through a float. */
const minor = (amount: string) => {
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const value = Number(whole) * 100 + Number((fraction + '00').slice(0, 2));
  return amount.startsWith('-') ? -value : value;
};

/**
 * The demo merchant app in a real Chromium (Debian's, driven by playwright-core): a person's way through
 * the product, against the sandbox, the api and a worker on a database of their own. Each step leaves a
 * screenshot in test-artifacts/demo/.
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

  beforeAll(async () => {
    const demoPort = await freePort();
    demoUrl = `http://127.0.0.1:${demoPort}`;
    stack = await startStack({
      ownDatabase: 'demo',
      worker: true,
      publicPorts: true,
      overrides: { LOG_LEVEL: 'silent', DEMO_PUBLIC_URL: demoUrl, PAYMENT_STATUS_POLL_SECONDS: '1' },
    });
    bff = stack.api.url;
    const merchant = await createMerchant(stack.api, { frontendOrigins: [demoUrl] });
    merchantKey = merchant.apiKey.key;
    demo = createDemoServer({ apiUrl: bff, merchantApiKey: merchantKey });
    await demo.listen({ host: '127.0.0.1', port: demoPort });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('request', (request) => requested.push(request.url()));
  }, 120_000);

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
  const approveAtBank = async () => {
    await page.waitForURL(/\/sandbox\/bank\//);
    await page.click('button[name="decision"][value="approve"]');
    await page.waitForURL((url) => url.origin === demoUrl);
  };

  it('creates a customer and connects a bank through its page, then watches the first sync to the end', async () => {
    await page.goto(demoUrl);
    await page.fill('#customer-new', uniqueName('alice'));
    await page.click('#customer-create');
    await page.waitForSelector('#connect:not([hidden])');
    await page.waitForSelector('#institution-select option[value="sandbox-redirect"]', { state: 'attached' });
    // Nothing to pay with yet: no pay button, whatever the row's own layout.
    expect(await page.isVisible('#vrp-pay-row')).toBe(false);
    expect(await page.isVisible('#vrp-pay')).toBe(false);
    // Each bank says how it connects, and the one chosen first has a bank page.
    expect(await page.locator('#institution-select option[value="sandbox-embedded"]').textContent()).toMatch(
      /\(embedded\)$/,
    );
    expect(await page.locator('#institution-select option[value="sandbox-redirect"]').textContent()).toMatch(
      /\(bank page\)$/,
    );
    expect(await page.inputValue('#institution-select')).toBe('sandbox-redirect');
    await screenshot(page, '01-customer');

    // The obvious first click, with nothing chosen by hand.
    await page.click('#connect-redirect');
    await approveAtBank();
    await expect.poll(() => page.textContent('#connect-status')).toContain('AUTHORIZED');
    await page.waitForSelector('#sync-status[data-done="true"]', { timeout: 90_000 });
    expect(await page.textContent('#sync-status')).toMatch(/3 of 3 accounts synced/);
    expect(await page.locator('#accounts .account').count()).toBe(3);
    await screenshot(page, '02-first-sync');
  });

  it('shows the transactions, pages through them, and marks the pending ones', async () => {
    const rows = page.locator('#tx-table tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    await page.click('#tx-more');
    await expect.poll(() => rows.count()).toBe(50);
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

  it('connects a second bank the embedded way: credentials, SCA method, code', async () => {
    // A bank without a page cannot be connected through one: the button says so before any call.
    await page.selectOption('#institution-select', 'sandbox-embedded');
    expect(await page.isDisabled('#connect-redirect')).toBe(true);
    expect(await page.textContent('#connect-status')).toContain('connect it the embedded way below');
    await page.selectOption('#institution-select', 'sandbox-redirect');
    expect(await page.isDisabled('#connect-redirect')).toBe(false);
    expect(await page.textContent('#embedded summary')).toContain('sandbox-embedded');
    await page.click('#embedded summary');
    await page.fill('#embedded-password', 'secret');
    await page.click('#embedded-start');
    await page.click('#embedded-methods button >> nth=0');
    await page.waitForSelector('#embedded-code:not([hidden])');
    await page.fill('#embedded-code-input', '123456');
    await page.click('#embedded-code-send');
    await expect
      .poll(() => page.textContent('#embedded-status'), { timeout: 60_000 })
      .toContain('AUTHORIZED');
    await screenshot(page, '05-embedded');
  });

  it('sets up sweeping VRP and shows the headroom, then the refusal when a payment would break the limit', async () => {
    await page.fill('#vrp-max', '20.00');
    await page.fill('#vrp-month', '25.00');
    await page.click('#vrp-setup');
    await approveAtBank();
    await expect.poll(() => page.textContent('#vrp-status')).toContain('AUTHORIZED');
    // The form is back to its defaults after the bank: the limits shown are the consent's own.
    await expect
      .poll(() => page.textContent('#vrp-headroom'))
      .toBe('max £20.00 a payment; £25.00 a month: paid £0.00, headroom £25.00');
    for (const [paid, headroom] of [
      ['£10.00', '£15.00'],
      ['£20.00', '£5.00'],
    ]) {
      await page.click('#vrp-pay');
      await expect
        .poll(() => page.textContent('#vrp-headroom'))
        .toContain(`paid ${paid}, headroom ${headroom}`);
    }
    await page.click('#vrp-pay');
    await expect
      .poll(() => page.textContent('#vrp-status'))
      .toBe('Refused: exceeds periodicLimits[0] (MONTHLY): 5.00 left');
    await screenshot(page, '06-vrp-refused');
  });

  it('takes a single payment through the bank page and shows its status change live', async () => {
    await page.click('#single-pay');
    await approveAtBank();
    const single = page.locator('#payment-table tbody tr', { hasText: 'SINGLE' }).first();
    await expect
      .poll(() => single.locator('.payment-status').textContent(), { timeout: 30_000 })
      .toBe('COMPLETED');
    await screenshot(page, '07-single-payment');
  });

  it('revokes the bank consent, and its transactions stay readable', async () => {
    const row = page.locator('#consent-table tbody tr', { hasText: 'sandbox-redirect' });
    await row.locator('button.revoke').click();
    await expect.poll(() => row.textContent()).toContain('REVOKED');
    await page.click('#tx-apply');
    await expect.poll(() => page.locator('#tx-table tbody tr').count()).toBe(25);
    await screenshot(page, '08-revoked-still-readable');
  });

  it('fits a phone: one column, the page before the developer panel, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(demoUrl);
    await page.waitForSelector('#connect:not([hidden])');
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth).toBeLessThanOrEqual(390);
    const main = (await page.locator('main').boundingBox())!;
    const panel = (await page.locator('#devpanel').boundingBox())!;
    expect(panel.y).toBeGreaterThanOrEqual(main.y + main.height);
    expect(panel.width).toBeLessThanOrEqual(390);
    await screenshot(page, '09-phone');
    // No call of the whole walk went out with an id the page did not have.
    expect(requested.filter((url) => /\/(null|undefined)(\/|$|\?)/.test(url))).toEqual([]);
  });
});
