import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImportMap, registerSdkAssets } from '../apps/demo-merchant/src/sdk-assets.js';
import { launchBrowser, screenshot, untilShown } from './kit/browser-kit.js';
import { send, sessionToken, type Stack, uniqueName, WAIT } from './kit/index.js';
import { buildSdkForPages, startSdkShop } from './kit/sdk-shop.js';

/** An event the test page saw reach `document` (so it bubbled out of the shadow root, composed). */
interface SeenEvent {
  type: 'connected' | 'failed' | 'cancelled';
  target: string;
  detail: { consent?: { id: string; status: string; kind: string; institutionId: string }; error?: unknown };
}

/**
 * The test page: the SDK through the import map of registerSdkAssets, a `<bff-connect>` in markup, and
 * its session token fetched from "the merchant's backend" and set as a property before the module
 * defines the element (the upgrade path). It records the element's events on `window.bffEvents`.
 */
const testPage = (importMap: ImportMap, bff: string, userId: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bff-connect</title>
<script type="importmap">${JSON.stringify(importMap)}</script>
<style>
  body { margin: 0; padding: 16px; font-family: sans-serif; }
  bff-connect { --bff-connect-accent: #0b6e4f; --bff-connect-radius: 12px; }
</style>
</head>
<body>
<main>
<h1>Acme budgeting</h1>
<bff-connect base-url="${bff}" user-id="${userId}"></bff-connect>
</main>
<script type="module">
  window.bffEvents = [];
  for (const type of ['connected', 'failed', 'cancelled']) {
    document.addEventListener(type, (event) =>
      window.bffEvents.push({ type, target: event.target.localName, detail: event.detail }));
  }
  const element = document.querySelector('bff-connect');
  const session = await (await fetch('/session', { method: 'POST' })).json();
  element.sessionToken = session.token;
  const { BffConnectElement } = await import('@open-banking-bff/merchant-sdk/connect');
  // The module evaluated again (another URL, the same element class): the definition is kept, quietly.
  await import('/sdk/connect/index.js?again');
  window.definedOnce = customElements.get('bff-connect') === BffConnectElement;
</script>
<script>
  // What the test asks the page (the test's own code is typed without the DOM).
  window.testKit = {
    /** What has focus: inside the component's shadow root when it is there. */
    focused() {
      const root = document.querySelector('bff-connect').shadowRoot;
      const element = root.activeElement ?? document.activeElement;
      const label = element.id && root.querySelector('label[for="' + element.id + '"]');
      return {
        tag: element.localName,
        text: element.textContent.trim(),
        label: label ? label.textContent : null,
        institution: element.getAttribute('data-institution-id'),
      };
    },
    /**
     * The page's width, the component's elements reaching past the screen's right edge, its inputs
     * without a label and its buttons without a type or a name.
     */
    audit() {
      const all = [...document.querySelector('bff-connect').shadowRoot.querySelectorAll('*')];
      const name = (e) => e.localName + '.' + e.className;
      return {
        scrollWidth: document.documentElement.scrollWidth,
        wide: all.filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).map(name),
        unlabelled: all.filter((e) => e.localName === 'input' && e.labels.length === 0).map(name),
        unnamed: all
          .filter((e) => e.localName === 'button')
          .filter((e) => !['button', 'submit'].includes(e.getAttribute('type')) || !e.textContent.trim())
          .map(name),
      };
    },
    /** A session token set as the property, as a page renewing its session does. */
    async setToken(token) {
      if (!token) token = (await (await fetch('/session', { method: 'POST' })).json()).token;
      document.querySelector('bff-connect').sessionToken = token;
    },
  };
</script>
</body>
</html>`;

/** Where focus is, as the page's testKit reports it. */
interface Focus {
  tag: string;
  text: string;
  label: string | null;
  institution: string | null;
}

describe('<bff-connect> (@open-banking-bff/merchant-sdk/connect), in Chromium', () => {
  let stack: Stack;
  let shop: FastifyInstance;
  let browser: Browser;
  let bff: string;
  let shopUrl: string;
  let merchantKey: string;
  let merchantId: string;
  let sdkDist: string;
  /** The user the shop's page is for: each test connects banks for a user of its own. */
  let userId = '';

  beforeAll(async () => {
    sdkDist = buildSdkForPages();
    const started = await startSdkShop('sdk-connect', () => userId);
    stack = started.stack;
    bff = stack.api.url;
    shop = started.server;
    shopUrl = started.url;
    merchantKey = started.merchant.apiKey.key;
    merchantId = started.merchant.merchant.id;
    const importMap = registerSdkAssets(shop, { sdkDist });
    shop.get('/', (_request, reply) => reply.type('text/html').send(testPage(importMap, bff, userId)));
    await started.listen();
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await shop?.close();
    await stack?.close();
    if (sdkDist) rmSync(sdkDist, { recursive: true, force: true });
  });

  /** A new user, and a page (a context of its own) that records every console error and failed request. */
  const open = async (viewport = { width: 1280, height: 900 }, url = shopUrl) => {
    const response = await send(`${bff}/v1/users`, 'POST', {
      token: merchantKey,
      body: { reference: uniqueName('connect') },
    });
    userId = ((await response.json()) as { data: { id: string } }).data.id;
    const context: BrowserContext = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => {
      const why = request.failure()?.errorText;
      // The funnel's report as the page leaves for the bank goes with keepalive: the browser sends it on
      // (sdk-connect-funnel.e2e-spec.ts counts it), the page it left sees it aborted.
      if (request.url() === `${bff}/v1/connect-funnel/reports` && why === 'net::ERR_ABORTED') return;
      problems.push(`failed: ${request.method()} ${request.url()} ${why}`);
    });
    page.on('response', (answer) => {
      if (answer.status() >= 400)
        problems.push(`HTTP ${answer.status()}: ${answer.request().method()} ${answer.url()}`);
    });
    await page.goto(url);
    await scriptDone(page);
    return { page, context, problems };
  };

  /**
   * The test page's script has run to its end, the SDK imported a second time (definedOnce): a test that
   * navigates sooner has the browser abort that import, and records it as a failed request.
   */
  const scriptDone = (page: Page) =>
    page.waitForFunction('window.definedOnce !== undefined', undefined, { timeout: WAIT.page });

  /** What the page recorded; nothing while it is (re)loading. */
  const events = (page: Page) => page.evaluate<SeenEvent[]>('window.bffEvents ?? []');
  const nextEvent = async (page: Page, within: number = WAIT.page) => {
    await untilShown(
      'an event of the component',
      async () => {
        expect((await events(page)).length).toBeGreaterThan(0);
      },
      within,
    );
    const seen = await events(page);
    expect(seen).toHaveLength(1);
    return seen[0];
  };
  const bankButton = (page: Page, id: string) =>
    page.locator(`bff-connect button[data-institution-id="${id}"]`);
  /** Waits for the list down to `id` alone: results come from the API's q, after the typing. */
  const narrowedTo = async (page: Page, id: string) => {
    await untilShown('the list narrowed to one bank', async () => {
      expect(await page.locator('bff-connect button.institution').count()).toBe(1);
    });
    await bankButton(page, id).waitFor();
  };
  /** Searches the list down to `id` alone (the search box is labelled). */
  const search = async (page: Page, text: string, id: string) => {
    await page.getByLabel('Search for your bank').fill(text);
    await narrowedTo(page, id);
  };
  const asMerchant = async (path: string) =>
    ((await (await send(`${bff}${path}`, 'GET', { token: merchantKey })).json()) as { data: any }).data;

  /** The redirect flow to the bank's decision and back; `check` runs at each step the page shows. */
  const redirectFlow = async (
    page: Page,
    decision: 'approve' | 'deny',
    check: (step: string) => Promise<void>,
  ) => {
    await search(page, 'redirect', 'sandbox-redirect');
    await check('redirect-list');
    await bankButton(page, 'sandbox-redirect').click();
    await check('redirect-bank');
    await page.getByRole('button', { name: "Continue to your bank's website" }).click();
    await page.waitForURL(/\/sandbox\/bank\//);
    await page.click(`button[name="decision"][value="${decision}"]`);
    await page.waitForURL((url) => url.origin === shopUrl);
  };

  /** The embedded flow: credentials, the first SCA method, the code. */
  const embeddedFlow = async (page: Page, check: (step: string) => Promise<void>) => {
    await search(page, 'embedded', 'sandbox-embedded');
    await bankButton(page, 'sandbox-embedded').click();
    await page.getByRole('button', { name: 'Sign in to your bank here' }).click();
    await page.getByLabel('User ID').fill('psu-1');
    await page.getByLabel('Password').fill('secret');
    await check('embedded-credentials');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('bff-connect button[data-method]').first().waitFor();
    await check('embedded-methods');
    await page.locator('bff-connect button[data-method]').first().click();
    await page.getByLabel('Code from your bank').fill('123456');
    await check('embedded-code');
    await page.getByRole('button', { name: 'Confirm' }).click();
  };

  const nothing = () => Promise.resolve();

  it('redirect flow: finds the bank, sends the user to it, and emits connected once they are back', async () => {
    const { page, context, problems } = await open();
    await redirectFlow(page, 'approve', nothing);
    const event = await nextEvent(page);
    expect(event.type).toBe('connected');
    expect(event.target).toBe('bff-connect');
    expect(event.detail.consent).toMatchObject({
      kind: 'ACCOUNT',
      status: 'AUTHORIZED',
      institutionId: 'sandbox-redirect',
    });
    expect((await asMerchant(`/v1/consents/${event.detail.consent!.id}`)).status).toBe('AUTHORIZED');
    // The return's parameters are gone from the address bar, and the component says it is done.
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('heading', { name: 'Bank connected' }).waitFor();
    await screenshot(page, 'connect-01-redirect-connected');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('embedded flow: credentials, SCA method and code in place, then connected; a wrong password is shown, not thrown', async () => {
    const { page, context, problems } = await open();
    // A wrong password first: the API's error, in the live region, and no event (the user can fix it).
    await search(page, 'embedded', 'sandbox-embedded');
    await bankButton(page, 'sandbox-embedded').click();
    await page.getByRole('button', { name: 'Sign in to your bank here' }).click();
    await page.getByLabel('User ID').fill('psu-1');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Continue' }).click();
    const alert = page.locator('bff-connect [role="alert"]');
    await untilShown('the alert naming its reference', async () => {
      expect(await alert.textContent()).toMatch(/Reference: \S+/);
    });
    await screenshot(page, 'connect-02-wrong-password');
    expect(await alert.getAttribute('aria-live')).toBe('assertive');
    expect(await alert.textContent()).not.toMatch(/at \S+:\d+|Error:/);
    expect(await events(page)).toEqual([]);
    // That one refusal is the only failed request: Chromium logs it, and nothing else went wrong.
    expect(problems.map((p) => p.replace(/\(.*\)$/, '').replace(/[\da-f-]{36}/g, '<id>'))).toEqual([
      `HTTP 400: POST ${bff}/v1/users/<id>/consents/embedded`,
      'console: Failed to load resource: the server responded with a status of 400 ',
    ]);
    problems.length = 0;

    await page.getByRole('button', { name: 'Cancel' }).click();
    const cancelled = await nextEvent(page);
    expect(cancelled).toMatchObject({ type: 'cancelled', detail: {} });
    await page.evaluate('window.bffEvents.length = 0');

    await embeddedFlow(page, nothing);
    const event = await nextEvent(page, WAIT.work);
    expect(event.type).toBe('connected');
    expect(event.detail.consent).toMatchObject({ status: 'AUTHORIZED', institutionId: 'sandbox-embedded' });
    await page.getByRole('heading', { name: 'Bank connected' }).waitFor();
    await screenshot(page, 'connect-02-embedded-connected');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('session token: never written to the attribute; a new one serves from the next call; an expired one is failed', async () => {
    const { page, context, problems } = await open();
    const element = page.locator('bff-connect');
    await page.locator('bff-connect button.institution').first().waitFor();
    expect(await page.evaluate<boolean>('window.definedOnce')).toBe(true);
    expect(await element.getAttribute('session-token')).toBeNull();
    expect(await page.content()).not.toContain('us_');

    // An expired session: the next search fails, is shown, and is reported as failed.
    const expired = sessionToken(stack.api.config, { merchantId, userId }, -60);
    await page.evaluate(`window.testKit.setToken(${JSON.stringify(expired)})`);
    expect(await element.getAttribute('session-token')).toBeNull();
    await page.getByLabel('Search for your bank').fill('sandbox');
    const failed = await nextEvent(page);
    // The api's 401 is readable by a listed origin: the page learns why, and can renew the session.
    expect(failed).toMatchObject({ type: 'failed', detail: { error: { code: 'UNAUTHENTICATED' } } });
    expect(failed.detail.consent).toBeUndefined();
    const { message, tracingId } = failed.detail.error as { message: string; tracingId: string };
    await untilShown('the alert with its message and reference', async () => {
      expect(await page.locator('bff-connect [role="alert"]').textContent()).toBe(
        `${message}Reference: ${tracingId}`,
      );
    });
    const search = `${bff}/v1/institutions?limit=50&q=sandbox`;
    // The search refused, and the funnel's reports of it (searched, then failed) with the same token.
    const refused =
      'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)';
    await untilShown('the refusals, the reports’ included (sent without waiting)', () => {
      expect([...problems].sort()).toEqual([
        `HTTP 401: GET ${search}`,
        `HTTP 401: POST ${bff}/v1/connect-funnel/reports`,
        `HTTP 401: POST ${bff}/v1/connect-funnel/reports`,
        refused,
        refused,
        refused,
      ]);
      return Promise.resolve();
    });
    problems.length = 0;

    // The page renews the session: the next call uses it, and the error goes.
    await page.evaluate('window.testKit.setToken()');
    await page.getByLabel('Search for your bank').fill('sandbox red');
    await bankButton(page, 'sandbox-redirect').waitFor();
    await untilShown('the alert cleared', async () => {
      expect(await page.locator('bff-connect [role="alert"]').textContent()).toBe('');
    });
    expect(await events(page)).toHaveLength(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('on a page whose origin the merchant does not list, says so before any call fails; listed, it works', async () => {
    // The same shop by another name: another origin, which the merchant has not listed.
    const elsewhere = shopUrl.replace('127.0.0.1', 'localhost');
    const { page, context, problems } = await open(undefined, elsewhere);
    const failed = await nextEvent(page);
    const message = `This page's origin ${elsewhere} is not in the merchant's frontendOrigins (${shopUrl}). Add it with PATCH /v1/merchant (or ask the operator), then reload.`;
    expect(failed).toMatchObject({
      type: 'failed',
      detail: { error: { code: 'ORIGIN_NOT_ALLOWED', message } },
    });
    await untilShown('the alert with its message', async () => {
      expect(await page.locator('bff-connect [role="alert"]').textContent()).toBe(message);
    });
    expect(await page.locator('bff-connect button.institution').count()).toBe(0);
    // Nothing failed on the way: the component asked only what it may read.
    expect(problems).toEqual([]);

    // The merchant lists the origin itself: a reload connects as usual.
    const origins = (list: string[]) =>
      send(`${bff}/v1/merchant`, 'PATCH', { token: merchantKey, body: { frontendOrigins: list } });
    expect((await origins([shopUrl, elsewhere])).status).toBe(200);
    try {
      await page.reload();
      await scriptDone(page);
      await page.locator('bff-connect button.institution').first().waitFor();
      expect(problems).toEqual([]);
    } finally {
      await origins([shopUrl]);
      await context.close();
    }
  });

  it('institution-id preselects a bank; country filters the list', async () => {
    const { page, context, problems } = await open();
    await page.locator('bff-connect button.institution').first().waitFor();
    // A second element, made by script with the first one's settings: the bank chosen in advance.
    const mount = (attributes: Record<string, string>) =>
      page.evaluate(`(() => {
        const first = document.querySelector('bff-connect');
        const element = document.createElement('bff-connect');
        element.setAttribute('base-url', first.baseUrl);
        element.setAttribute('user-id', first.userId);
        for (const [name, value] of Object.entries(${JSON.stringify(attributes)})) element.setAttribute(name, value);
        element.sessionToken = first.sessionToken;
        first.replaceWith(element);
      })()`);
    await mount({ 'institution-id': 'sandbox-embedded', country: 'GB' });
    await page.getByRole('heading', { name: 'Connect Sandbox Embedded Bank' }).waitFor();
    expect(
      await page.locator('bff-connect button[data-flow]').evaluateAll((b) => b.map((e) => e.textContent)),
    ).toEqual(['Sign in to your bank here']);
    await page.getByRole('button', { name: 'Choose another bank' }).click();
    await untilShown('the whole list of banks back', async () => {
      expect(await page.locator('bff-connect button.institution').count()).toBeGreaterThan(1);
    });

    await mount({ country: 'FR' });
    await untilShown('no bank matching, said', async () => {
      expect(await page.locator('bff-connect [role="status"]').textContent()).toBe(
        'No bank matches your search.',
      );
    });
    expect(await page.locator('bff-connect button.institution').count()).toBe(0);
    expect(await events(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('rejecting at the bank emits cancelled, with the REJECTED consent', async () => {
    const { page, context, problems } = await open();
    await redirectFlow(page, 'deny', nothing);
    const event = await nextEvent(page);
    expect(event.type).toBe('cancelled');
    expect(event.detail.consent).toMatchObject({ status: 'REJECTED', institutionId: 'sandbox-redirect' });
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('heading', { name: 'Not connected' }).waitFor();
    await screenshot(page, 'connect-03-rejected');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keyboard only: Tab and Enter choose the bank and run both flows, focus following each step', async () => {
    const { page, context, problems } = await open();
    /** What has focus, inside the component's shadow root when it is there. */
    const focused = () => page.evaluate<Focus>('window.testKit.focused()');
    const tabTo = async (want: (f: Focus) => boolean) => {
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('Tab');
        if (want(await focused())) return;
      }
      const list = await page.locator('bff-connect button.institution').allTextContents();
      throw new Error(
        `Tab never reached it; focus is on ${JSON.stringify(await focused())}; list ${list.join(', ')}`,
      );
    };
    /** Types into the focused search box, then reaches the one bank left with Tab and opens it. */
    const chooseBank = async (text: string, id: string) => {
      await page.keyboard.type(text);
      await narrowedTo(page, id);
      await tabTo((f) => f.institution === id);
      await page.keyboard.press('Enter');
    };
    await page.locator('bff-connect button.institution').first().waitFor();

    // The embedded flow: every step reached and submitted with the keyboard.
    await tabTo((f) => f.label === 'Search for your bank');
    await chooseBank('embedded', 'sandbox-embedded');
    expect((await focused()).text).toBe('Sign in to your bank here');
    await page.keyboard.press('Enter');
    expect((await focused()).label).toBe('User ID');
    await page.keyboard.type('psu-2');
    await page.keyboard.press('Tab');
    expect((await focused()).label).toBe('Password');
    await page.keyboard.type('secret');
    await page.keyboard.press('Enter');
    await untilShown('the focus on a method button', async () => {
      expect((await focused()).tag).toBe('button');
    });
    expect(await page.locator('bff-connect button[data-method]').count()).toBeGreaterThan(0);
    await page.keyboard.press('Enter');
    await untilShown('the focus on the code field', async () => {
      expect((await focused()).label).toBe('Code from your bank');
    });
    await page.keyboard.type('123456');
    await page.keyboard.press('Enter');
    const embedded = await nextEvent(page, WAIT.work);
    expect(embedded.detail.consent).toMatchObject({
      status: 'AUTHORIZED',
      institutionId: 'sandbox-embedded',
    });
    expect((await focused()).text).toBe('Bank connected');

    // Start again, and the redirect flow as far as the bank's page.
    await tabTo((f) => f.text === 'Connect another bank');
    await page.keyboard.press('Enter');
    expect((await focused()).label).toBe('Search for your bank');
    await page.keyboard.press('Control+A');
    await chooseBank('redirect', 'sandbox-redirect');
    expect((await focused()).text).toBe("Continue to your bank's website");
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/sandbox\/bank\//);
    await page.click('button[name="decision"][value="approve"]');
    await page.waitForURL((url) => url.origin === shopUrl);
    await untilShown('one connected event', async () => {
      expect((await events(page)).map((e) => e.type)).toEqual(['connected']);
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('fits a phone (375×740): both flows; at every step nothing wider than the screen, every input labelled', async () => {
    const { page, context, problems } = await open({ width: 375, height: 740 });
    /** At each step: nothing past the screen's edge, inputs with labels, buttons that are buttons. */
    const fits = async (step: string) => {
      const audit = await page.evaluate('window.testKit.audit()');
      expect(audit, step).toEqual({ scrollWidth: 375, wide: [], unlabelled: [], unnamed: [] });
      await screenshot(page, `connect-phone-${step}`);
    };
    await page.locator('bff-connect button.institution').first().waitFor();
    await fits('list');
    await redirectFlow(page, 'approve', fits);
    await untilShown('one connected event', async () => {
      expect((await events(page)).map((e) => e.type)).toEqual(['connected']);
    });
    await page.getByRole('heading', { name: 'Bank connected' }).waitFor();
    await fits('redirect-connected');

    await page.getByRole('button', { name: 'Connect another bank' }).click();
    await embeddedFlow(page, fits);
    await untilShown(
      'a second connected event',
      async () => {
        expect((await events(page)).map((e) => e.type)).toEqual(['connected', 'connected']);
      },
      WAIT.work,
    );
    await page.getByRole('heading', { name: 'Bank connected' }).waitFor();
    await fits('embedded-connected');
    expect(problems).toEqual([]);
    await context.close();
  });
});
