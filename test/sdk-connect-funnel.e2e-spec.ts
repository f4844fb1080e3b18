import { rmSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECT_STEPS, FUNNEL_ENDS } from '#libs/domain/consents';
import { type ImportMap, registerSdkAssets } from '../apps/demo-merchant/src/sdk-assets.js';
import { launchBrowser, untilShown } from './kit/browser-kit.js';
import { send, type Stack, uniqueName, WAIT } from './kit/index.js';
import { SandboxHttp } from './kit/sandbox-http.js';
import { buildSdkForPages, startSdkShop } from './kit/sdk-shop.js';

/** A shop's page with a `<bff-connect>` for the user of the moment; it keeps the element's events. */
const shopPage = (importMap: ImportMap, bff: string, userId: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Connect</title>
<script type="importmap">${JSON.stringify(importMap)}</script></head>
<body>
<bff-connect base-url="${bff}" user-id="${userId}"></bff-connect>
<script type="module">
  window.bffEvents = [];
  for (const type of ['connected', 'failed', 'cancelled']) {
    document.addEventListener(type, (event) => window.bffEvents.push({ type, detail: event.detail }));
  }
  const session = await (await fetch('/session', { method: 'POST' })).json();
  document.querySelector('bff-connect').sessionToken = session.token;
  await import('@open-banking-bff/merchant-sdk/connect');
</script>
</body>
</html>`;

const STEPS = CONNECT_STEPS;
const ENDS = FUNNEL_ENDS;

/** One funnel row as the API answers it. */
type FunnelRow = Record<(typeof STEPS)[number] | (typeof ENDS)[number], number> & {
  institutionId: string | null;
  errors: { step: string; reason: string; attempts: number }[];
};

/**
 * The test's own tally of what it did in the browser, by bank: an attempt's steps and its end, and the
 * last error it met. The funnel the API serves must equal it, row for row.
 */
class Tally {
  #rows = new Map<string, FunnelRow>();

  attempt(
    institutionId: string,
    steps: (typeof STEPS)[number][],
    end: (typeof ENDS)[number],
    error?: { step: string; reason: string },
  ) {
    const row =
      this.#rows.get(institutionId) ??
      ({
        institutionId,
        ...Object.fromEntries([...STEPS, ...ENDS].map((k) => [k, 0])),
        errors: [],
      } as unknown as FunnelRow);
    for (const step of ['opened', ...steps] as const) row[step] += 1;
    row[end] += 1;
    if (error) {
      const seen = row.errors.find((e) => e.step === error.step && e.reason === error.reason);
      if (seen) seen.attempts += 1;
      else row.errors.push({ ...error, attempts: 1 });
    }
    this.#rows.set(institutionId, row);
  }

  rows(): FunnelRow[] {
    return [...this.#rows.values()].sort((a, b) =>
      String(a.institutionId).localeCompare(String(b.institutionId)),
    );
  }
}

describe('the connect funnel: <bff-connect> in Chromium, every way out, against its own tally', () => {
  let stack: Stack;
  let browser: Browser;
  let sandbox: SandboxHttp;
  let shopUrl: string;
  let merchantKey: string;
  let sdkDist: string;
  let userId = '';
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    sdkDist = buildSdkForPages();
    const shop = await startSdkShop('sdk-connect-funnel', () => userId);
    stack = shop.stack;
    closers.push(
      () => stack.close(),
      () => shop.server.close(),
    );
    shopUrl = shop.url;
    merchantKey = shop.merchant.apiKey.key;
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const importMap = registerSdkAssets(shop.server, { sdkDist });
    shop.server.get('/', (_request, reply) =>
      reply.type('text/html').send(shopPage(importMap, stack.api.url, userId)),
    );
    await shop.listen();
    browser = await launchBrowser();
    closers.push(() => browser.close());
  }, 180_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    if (sdkDist) rmSync(sdkDist, { recursive: true, force: true });
  });

  /** A new user of the shop, and its page in a context of its own. */
  const open = async () => {
    const response = await send(`${stack.api.url}/v1/users`, 'POST', {
      token: merchantKey,
      body: { reference: uniqueName('funnel') },
    });
    userId = ((await response.json()) as { data: { id: string } }).data.id;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(shopUrl);
    await page.locator('bff-connect button.institution').first().waitFor();
    return { page, context };
  };
  const events = (page: Page) => page.evaluate<{ type: string; detail: any }[]>('window.bffEvents ?? []');
  const lastEvent = async (page: Page, within: number = WAIT.page) => {
    await untilShown(
      'an event of the component',
      async () => expect((await events(page)).length).toBe(1),
      within,
    );
    return (await events(page))[0];
  };
  const chooseBank = async (page: Page, search: string, id: string) => {
    await page.getByLabel('Search for your bank').fill(search);
    await untilShown('the list narrowed to one bank', async () => {
      expect(await page.locator('bff-connect button.institution').count()).toBe(1);
    });
    await page.locator(`bff-connect button[data-institution-id="${id}"]`).click();
  };
  const toBankAndBack = async (page: Page, decision: 'approve' | 'deny') => {
    await chooseBank(page, 'redirect', 'sandbox-redirect');
    await page.getByRole('button', { name: "Continue to your bank's website" }).click();
    await page.waitForURL(/\/sandbox\/bank\//);
    await page.click(`button[name="decision"][value="${decision}"]`);
    await page.waitForURL((url) => url.origin === shopUrl);
  };
  const funnel = async () => {
    const response = await send(`${stack.api.url}/v1/insights/connect-funnel`, 'GET', { token: merchantKey });
    expect(response.status).toBe(200);
    return (
      (await response.json()) as {
        data: { institutions: FunnelRow[]; days: (FunnelRow & { day: string })[] };
      }
    ).data;
  };

  it('approve, decline, cancel, a password mistyped, a bank error, a tab closed: the funnel equals the tally', async () => {
    const tally = new Tally();
    const firstDay = new Date().toISOString().slice(0, 10);
    const full = ['searched', 'chose', 'sentToBank', 'returned'] as const;

    // Approved at the bank.
    let { page, context } = await open();
    await toBankAndBack(page, 'approve');
    expect((await lastEvent(page)).type).toBe('connected');
    tally.attempt('sandbox-redirect', [...full], 'connected');
    await context.close();

    // Declined at the bank.
    ({ page, context } = await open());
    await toBankAndBack(page, 'deny');
    expect((await lastEvent(page)).detail.consent.status).toBe('REJECTED');
    tally.attempt('sandbox-redirect', [...full], 'declined');
    await context.close();

    // In place: a password mistyped (an error the user gets past), then cancelled.
    ({ page, context } = await open());
    await chooseBank(page, 'embedded', 'sandbox-embedded');
    await page.getByRole('button', { name: 'Sign in to your bank here' }).click();
    await page.getByLabel('User ID').fill('psu-1');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Continue' }).click();
    await untilShown('the error shown', async () => {
      expect(await page.locator('bff-connect [role="alert"]').textContent()).toMatch(/Reference/);
    });
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await lastEvent(page)).type).toBe('cancelled');
    tally.attempt('sandbox-embedded', ['searched', 'chose'], 'cancelled', {
      step: 'chose',
      reason: 'VALIDATION_FAILED',
    });
    await context.close();

    // The bank fails when asked for the consent: failed, with the code the component showed.
    ({ page, context } = await open());
    const fault = {
      method: 'POST',
      path: '/account-auth-requests',
      status: 500,
      source: 'INSTITUTION',
      count: 10,
    };
    expect((await sandbox.admin('POST', '/faults', fault)).status).toBe(201);
    try {
      await chooseBank(page, 'redirect', 'sandbox-redirect');
      await page.getByRole('button', { name: "Continue to your bank's website" }).click();
      const failed = await lastEvent(page, WAIT.work);
      expect(failed.type).toBe('failed');
      tally.attempt('sandbox-redirect', ['searched', 'chose'], 'failed', {
        step: 'chose',
        reason: failed.detail.error.code,
      });
    } finally {
      await sandbox.admin('DELETE', '/faults');
    }
    await context.close();

    // The tab closed with a bank chosen: abandoned at once (the page says so as it goes).
    ({ page, context } = await open());
    await chooseBank(page, 'embedded', 'sandbox-embedded');
    await page.getByRole('button', { name: 'Sign in to your bank here' }).waitFor();
    await page.close({ runBeforeUnload: true });
    tally.attempt('sandbox-embedded', ['searched', 'chose'], 'abandoned');
    await context.close();

    await untilShown('the funnel equal to the tally', async () => {
      const served = await funnel();
      expect(served.institutions).toEqual(tally.rows());
      // One day's rows, unless the walk crossed midnight (UTC): then its attempts are on two.
      const lastDay = new Date().toISOString().slice(0, 10);
      if (firstDay === lastDay)
        expect(served.days).toEqual(tally.rows().map((row) => ({ day: firstDay, ...row })));
      else expect(served.days.every((row) => [firstDay, lastDay].includes(row.day))).toBe(true);
    });
  });
});
