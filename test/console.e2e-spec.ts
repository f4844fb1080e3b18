import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool, PrismaService } from '#libs/database';
import { FUNNEL_COUNTS } from '#libs/domain/consents';
import { PaymentStatusPoller } from '#libs/domain/payments';
import { launchBrowser } from './kit/browser-kit.js';
import {
  accountsWhenSynced,
  atBank,
  connect,
  createConsentRow,
  createPaymentRow,
  dataOf,
  EventReceiver,
  eventually,
  onboard,
  pastDeliveries,
  paymentBodies,
  runWhenEnded,
  SandboxHttp,
  syncAtFailingBank,
  type Tenant,
  uniqueName,
  useStack,
} from './kit/index.js';

/** An entry of an upstream call log (GET …/upstream-calls), what these tests read of it. */
interface UpstreamCall {
  operation: string;
  errorCode: string | null;
  tracingId: string | null;
}

/** A bank's row of the connect funnel, what these tests read of it. */
type FunnelRow = Record<(typeof FUNNEL_COUNTS)[number], number> & {
  institutionId: string | null;
  errors: { step: string; reason: string; attempts: number }[];
};
/** The words the console says each step in. */
const STEP_WORDS: Record<string, string> = {
  opened: 'Opened',
  searched: 'Searched',
  chose: 'Chose a bank',
  sentToBank: 'Sent to the bank',
  returned: 'Came back',
};
const bankOf = (row: FunnelRow) => row.institutionId ?? 'No bank chosen';
/** The cells the connect funnel's screen shows for the api's rows: its table of counts, its errors'. */
const funnelCells = (rows: FunnelRow[]) =>
  rows.map((row) => [bankOf(row), ...FUNNEL_COUNTS.map((c) => String(row[c]))]);
const funnelErrorCells = (rows: FunnelRow[]) =>
  rows.flatMap((row) =>
    row.errors.map((e) => [bankOf(row), STEP_WORDS[e.step], e.reason, String(e.attempts)]),
  );
/** The first day of the last `days` days (UTC), as the console's insight screens ask from. */
const since = (days: number) => new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
/** Each body row's cells of a table on the page, once it shows `count` rows. */
async function tableCells(table: Locator, count: number): Promise<string[][]> {
  await table
    .locator('tbody tr')
    .nth(count - 1)
    .waitFor();
  return Promise.all(
    (await table.locator('tbody tr').all()).map((row) => row.locator('td').allTextContents()),
  );
}

/**
 * Each screen's screenshot: in test-artifacts/console/ on every run, and in docs/console/ (what
 * docs/console.md shows) when UPDATE_DOCS_SCREENSHOTS=1, so that a test run leaves the tree as it was.
 */
const SHOTS = join(
  process.cwd(),
  ...(process.env.UPDATE_DOCS_SCREENSHOTS === '1' ? ['docs', 'console'] : ['test-artifacts', 'console']),
);

/**
 * The web console in a real Chromium (Debian's, driven by playwright-core) against the real stack: a
 * merchant's developer and the operator, each through the screens of the console's first slice. No step
 * may log an error or ask any host but the api; each screen is photographed for docs/console.md.
 */
describe('web console, in a browser', () => {
  const stack = useStack({ ownDatabase: 'console', worker: true, publicPorts: true });
  let browser: Browser;
  let page: Page;
  let api: string;
  let tenant: Tenant;
  let reference: string;
  let failedTracingId: string;
  let failedRunId: string;
  let accountId: string;
  let receiver: EventReceiver | undefined;
  const consoleErrors: string[] = [];
  const elsewhere: string[] = [];
  /** Every request the page made, and those that carried an Authorization header (none should). */
  const requested: string[] = [];
  const withAuthorization: string[] = [];
  /** Every answer the page read after signing in, to look for the key in it. */
  const answers: string[] = [];

  beforeAll(async () => {
    api = stack.api.url;
    tenant = await onboard(stack, { name: 'Acme Shop' });
    reference = dataOf<{ reference: string }>(
      await tenant.client.get(`/v1/users/${tenant.userId}`),
    ).reference;
    await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    accountId = account.id;
    // One run that fails at the bank (so it carries the upstream's tracing id), then one that succeeds.
    const failed = await syncAtFailingBank(stack, tenant, account);
    expect(failed.status).toBe('failed');
    failedTracingId = failed.error.upstream.tracingId as string;
    failedRunId = failed.id;
    expect(failedTracingId).toBeTruthy();
    const again = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${account.id}/sync`),
      202,
    );
    expect((await runWhenEnded(tenant.client, again.syncId)).status).toBe('succeeded');

    mkdirSync(SHOTS, { recursive: true });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('request', (request) => {
      requested.push(request.url());
      if (request.headers().authorization !== undefined) withAuthorization.push(request.url());
      const url = new URL(request.url());
      if (url.origin !== api && url.protocol !== 'data:') elsewhere.push(request.url());
    });
    page.on('response', async (response) => {
      answers.push(JSON.stringify(response.headers()) + (await response.text().catch(() => '')));
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${error.name}: ${error.message}`));
    page.on('dialog', (dialog) => void dialog.accept());
  }, 180_000);

  afterEach(() => {
    expect(consoleErrors.splice(0)).toEqual([]);
    expect(elsewhere.splice(0)).toEqual([]);
    expect(withAuthorization).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
  });

  /** Each screen photographed is first held to the accessibility checks below. */
  const shot = async (name: string) => {
    expect(await accessibilityProblems(page), name).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

  it('serves the console under a strict Content-Security-Policy and offers the sign-in', async () => {
    const response = await page.goto(`${api}/console/`);
    expect(response!.headers()['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    await heading('Sign in');
    await shot('sign-in');
  });

  it('reaches every sign-in field and button by keyboard in reading order, and the skip link', async () => {
    // The screen's heading has the focus as it opens: the fields come next, in the order they are read.
    expect(await focusedName(page)).toBe('H1 Sign in');
    const order: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      await page.keyboard.press('Tab');
      order.push(await focusedName(page));
    }
    expect(order).toEqual([
      'INPUT API key',
      'BUTTON Sign in with the key',
      'INPUT Operator token',
      'BUTTON Sign in as the operator',
    ]);
    for (let i = 0; i < 4; i += 1) await page.keyboard.press('Shift+Tab');
    expect(await focusedName(page)).toBe('A Skip to the page');
    // It moves the focus to the screen's heading, and leaves the address as it was.
    await page.keyboard.press('Enter');
    expect(await focusedName(page)).toBe('H1 Sign in');
    expect(new URL(page.url()).hash).toBe('');
  });

  it("signs a merchant's developer in with an API key the page then holds nowhere", async () => {
    const key = tenant.merchant.apiKey.key;
    await page.getByLabel('API key', { exact: true }).fill(key);
    answers.splice(0);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await heading('API keys');
    await page.locator('#keys-list table').waitFor();
    await page.getByText('Signed in for Acme Shop').waitFor();
    // Evaluated in the page (a string: this file has no DOM types).
    const held = JSON.parse(
      await page.evaluate<string>(`JSON.stringify({
        local: JSON.stringify({ ...localStorage }),
        session: JSON.stringify({ ...sessionStorage }),
        cookie: document.cookie,
        dom: document.documentElement.outerHTML,
        inputs: [...document.querySelectorAll('input')].map((input) => input.value).join(' '),
      })`),
    ) as Record<string, string>;
    for (const [where, text] of Object.entries(held)) expect(text, where).not.toContain(key);
    expect(held.cookie).toBe('');
    expect(answers.join('\n')).not.toContain(key);
    // The merchant screens run on the SDK's bundle from the api, authenticated by the cookie alone.
    expect(requested.some((url) => url.startsWith(`${api}/sdk/merchant-sdk@`))).toBe(true);
    await shot('api-keys');
  });

  it('issues a key, shown once, and revokes it', async () => {
    const keysBefore = dataOf<unknown[]>(await tenant.client.get('/v1/merchant/api-keys')).length;
    await page.getByLabel('Name of the new key (optional)').fill('console test');
    // A double click issues one key: the button is off while its request is out.
    await page.getByRole('button', { name: 'Issue a key' }).dblclick();
    const shown = page.getByLabel('New API key');
    await shown.waitFor();
    expect(await shown.inputValue()).toMatch(/^mk_/);
    expect(dataOf<unknown[]>(await tenant.client.get('/v1/merchant/api-keys'))).toHaveLength(keysBefore + 1);
    await shot('api-key-issued');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke the key console test' }).click();
    await page.getByText('The key "console test" is revoked.').waitFor();
    await page
      .locator('#keys-list tr', { hasText: 'console test' })
      .getByText(/^Revoked/)
      .waitFor();
  });

  it('adds and removes a frontend origin', async () => {
    await page.getByRole('link', { name: 'Frontend origins' }).click();
    await heading('Frontend origins');
    await page.getByText('No origin yet').waitFor();
    await page.getByLabel('Origin', { exact: true }).fill('https://shop.example');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.locator('#origins-list').getByText('https://shop.example').waitFor();
    await shot('origins');
    const merchant = dataOf<{ frontendOrigins: string[] }>(await tenant.client.get('/v1/merchant'));
    expect(merchant.frontendOrigins).toEqual(['https://shop.example']);
    await page.getByRole('button', { name: 'Remove https://shop.example' }).click();
    await page.getByText('No origin yet').waitFor();
  });

  it("finds a customer by reference, their consent and account, the account's runs and transactions", async () => {
    await page.getByRole('link', { name: 'Customers' }).click();
    await heading('Customers');
    await page.getByLabel('Find a customer by your reference for them').fill(reference);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('#customers-results').getByRole('link', { name: reference }).waitFor();
    await shot('customers');
    await page.locator('#customers-results').getByRole('link', { name: reference }).click();
    await heading(`Customer ${reference}`);
    await page.locator('#consents').getByRole('cell', { name: 'Authorised' }).waitFor();
    await page.locator('#accounts').getByRole('cell', { name: 'Up to date' }).first().waitFor();
    // One page of each list here: the last page says so, with no button for another.
    await page
      .locator('#consents')
      .getByText(/^That is all of them: \d+\.$/)
      .waitFor();
    await page
      .locator('#accounts')
      .getByText(/^That is all of them: \d+\.$/)
      .waitFor();
    // The consent's status history: asked for on opening it, oldest first, in plain words.
    await page.locator('#consents').getByText('Status history').first().click();
    const history = page.locator('#consents details[open] table tbody tr');
    await history.nth(1).waitFor();
    expect(await history.count()).toBe(2);
    expect(await history.nth(0).locator('td').allInnerTexts()).toEqual([
      expect.any(String),
      'Waiting for the customer at the bank',
      'First recorded',
    ]);
    expect((await history.nth(1).locator('td').allInnerTexts()).slice(1)).toEqual([
      'Authorised',
      'Waiting for the customer at the bank',
    ]);
    await shot('customer');

    await page
      .getByRole('link', { name: /^Sync runs and transactions of/ })
      .first()
      .click();
    await heading(/^Account /);
    const runs = page.locator('#sync-runs');
    await runs.getByText(failedTracingId).waitFor();
    await runs.getByText('Finished').first().waitFor();
    await runs.getByText('Asked for').first().waitFor();
    await page.locator('#transactions table tbody tr').first().waitFor();
    await shot('account');
  });

  // Issue 61's done-when: support, given only the customer's reference, reaches the failed sync and the
  // tracing id of each call the bank failed, to quote to the bank; and that id leads back to the run.
  it("finds a sync failed at the bank from the customer's reference through the call log, with each failed call's tracing id", async () => {
    const failedCalls = await eventually('the failed run’s calls logged', async () => {
      const calls = dataOf<UpstreamCall[]>(
        await tenant.client.get(`/v1/syncs/${failedRunId}/upstream-calls?limit=100`),
      );
      const failures = calls.filter((call) => call.errorCode !== null);
      return failures.length > 0 ? failures : undefined;
    });
    expect(failedCalls.every((call) => call.tracingId)).toBe(true);
    // How the page must show each: in words, not by colour alone, with the tracing id to quote.
    const expected = failedCalls.map((call) => [call.operation, `Failed: ${call.errorCode}`, call.tracingId]);

    await page.getByRole('link', { name: 'Customers' }).click();
    await heading('Customers');
    await page.getByLabel('Find a customer by your reference for them').fill(reference);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('#customers-results').getByRole('link', { name: reference }).click();
    await heading(`Customer ${reference}`);
    // The consent's log holds its runs' calls too, the failed ones among them.
    await page.locator('#consents summary', { hasText: 'Upstream calls' }).click();
    expect(await failedCallsShown(page.locator('#consents [id^="calls-"]'))).toEqual(
      expect.arrayContaining(expected),
    );
    await page.locator(`a[href="#/accounts/${accountId}"]`).click();
    await heading(/^Account /);
    // The failed run, as a person finds it: by its status; its calls open beneath it.
    const failedRun = page.locator('#sync-runs tbody tr', {
      has: page.getByRole('cell', { name: 'Failed', exact: true }),
    });
    expect(await failedRun.locator('td').last().innerText()).toBe(failedRunId);
    await page.locator('#sync-runs summary', { hasText: `Upstream calls of the run ${failedRunId}` }).click();
    // Every failed call of the run, as the API lists them, newest first.
    expect(await failedCallsShown(page.locator(`#calls-${failedRunId}`))).toEqual(expected);
    await shot('upstream-calls');

    // The tracing id of a failed call leads back to the run on the lookup screen, its calls a click away.
    const [quoted] = failedCalls;
    await page.getByRole('link', { name: 'Look up a tracing id' }).click();
    await heading('Look up a tracing id');
    await page.getByLabel('Tracing id, customer reference or other id').fill(quoted.tracingId!);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator('#lookup-runs').getByRole('cell', { name: failedRunId, exact: true }).waitFor();
    await page.locator('#lookup-runs summary', { hasText: `of the run ${failedRunId}` }).click();
    expect(await failedCallsShown(page.locator(`#lookup-runs #calls-${failedRunId}`))).toEqual(expected);
  });

  it('adds an event endpoint, tests it, rotates its secret, sends a failed delivery again, deletes it', async () => {
    receiver = await new EventReceiver().start();
    await page.getByRole('link', { name: 'Event endpoints' }).click();
    await heading('Event endpoints');
    await page.getByText('No endpoint yet').waitFor();
    await page.getByLabel('Address of the endpoint').fill(receiver.url);
    await page.getByLabel('A sync of one account finished').check();
    await page.getByLabel('Most deliveries a second').fill('20');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    const secret = page.getByLabel('Signing secret');
    await secret.waitFor();
    const first = await secret.inputValue();
    expect(first).toMatch(/^whsec_/);
    await page.locator('#endpoints-list').getByText(receiver.url, { exact: true }).waitFor();
    await shot('event-endpoints');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByLabel('Signing secret').count()).toBe(0);

    await page.getByRole('link', { name: `Test, secret and deliveries of ${receiver.url}` }).click();
    await heading(`Event endpoint ${receiver.url}`);
    const endpointId = /#\/event-endpoints\/([\w-]+)$/.exec(page.url())![1];
    await page.locator('#endpoint-rate-limit').getByText('At most 20 deliveries a second').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('Delivered: your endpoint accepted the test event.').waitFor();
    expect(receiver.accepted().map((event) => event.type)).toEqual(['endpoint.test']);
    await page.locator('#test-result').getByText('HTTP 200').waitFor();
    // What the endpoint said, as a developer mending it needs to see.
    await page.locator('#test-result pre', { hasText: /^ok$/ }).waitFor();

    // Changed in place: a refused address is named and kept for mending, then new types are saved.
    const address = page.getByLabel('Address of the endpoint');
    expect(await address.inputValue()).toBe(receiver.url);
    await address.fill('ftp://merchant.example/hooks');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText(/^Could not change the endpoint\. url must be .*\(tracing id /).waitFor();
    expect(await address.inputValue()).toBe('ftp://merchant.example/hooks');
    // The browser reports the refused request itself; nothing else went wrong.
    expect(consoleErrors.splice(0)).toEqual([expect.stringMatching(/status of 400/)]);
    await address.fill(receiver.url);
    await page.getByLabel('The consent was revoked').check();
    // The limit as it is, lifted by emptying the field.
    const rate = page.getByLabel('Most deliveries a second');
    expect(await rate.inputValue()).toBe('20');
    await rate.fill('');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText(`Saved: events now go to ${receiver.url}.`).waitFor();
    await page
      .locator('#endpoint-about')
      .getByText('The consent was revoked, A sync of one account finished')
      .waitFor();
    const changed = dataOf(await tenant.client.get(`/v1/event-endpoints/${endpointId}`));
    expect(changed.types.sort()).toEqual(['consent.revoked', 'sync.succeeded']);
    expect(changed.rateLimit).toBeNull();
    await page.locator('#endpoint-rate-limit').getByText('None: deliveries go as they come').waitFor();

    await page.getByRole('button', { name: 'Make a new signing secret' }).click();
    await page.getByLabel('Signing secret').waitFor();
    const second = await page.getByLabel('Signing secret').inputValue();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    // A sync's event the endpoint refuses: its delivery waits for another attempt, with the answer.
    receiver.otherwise = 500;
    await runWhenEnded(
      tenant.client,
      dataOf<{ syncId: string }>(await tenant.client.post(`/v1/accounts/${accountId}/sync`), 202).syncId,
    );
    await eventually('the refused delivery', async () => {
      const [delivery] = dataOf<{ attempts: number; lastResponseStatus: number | null }[]>(
        await tenant.client.get(`/v1/event-endpoints/${endpointId}/deliveries`),
      );
      expect(delivery).toMatchObject({ lastResponseStatus: 500 });
      return true;
    });
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.locator('#deliveries tbody tr', { hasText: 'sync.succeeded' });
    await row.getByText('HTTP 500').waitFor();
    await row.getByRole('cell', { name: 'Not delivered yet' }).waitFor();
    await shot('event-endpoint');

    // The delivery opened: its attempt as sent and as answered, then sent again from there.
    await row
      .getByRole('link', { name: /^Each attempt of “A sync of one account finished”, event / })
      .click();
    await heading(/^Attempts of “A sync of one account finished”, event /);
    const attempts = page.locator('#attempts');
    // The newest is open: its answer, its request's signed headers and body, and the answer's body.
    const newest = attempts.locator('details[open]');
    await newest.locator('summary', { hasText: 'HTTP 500: answered 500' }).waitFor();
    await newest.getByText('webhook-signature').waitFor();
    await newest.locator('pre', { hasText: '"type":"sync.succeeded"' }).waitFor();
    await newest.locator('pre', { hasText: /^no$/ }).waitFor();
    receiver.otherwise = 200;
    await page.getByRole('button', { name: 'Send again', exact: true }).click();
    await page.getByText('The event is being sent again').waitFor();
    // The manual attempt (the worker's own retry may have come first: a number past 1 either way).
    const delivered = attempts.locator('details[open] summary', {
      hasText: /^Attempt (?!1,)\d+, .*: HTTP 200 /,
    });
    await delivered.waitFor();
    expect(receiver.accepted().map((event) => event.type)).toContain('sync.succeeded');
    await shot('event-delivery');
    // An older attempt opens on demand.
    const firstAttempt = attempts.locator('details', { hasText: 'Attempt 1,' });
    await firstAttempt.locator('summary').click();
    await firstAttempt.getByText('HTTP 500', { exact: true }).waitFor();

    await page.getByRole('link', { name: '← The endpoint and its deliveries' }).click();
    await heading(`Event endpoint ${receiver.url}`);
    await row.getByRole('cell', { name: 'Delivered', exact: true }).waitFor();

    // An outage two hours ago left a delivery failed for good: sent again from the screen, by time.
    const [lost] = await pastDeliveries(stack.api.app.get(DatabasePool), {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
      endpointId,
      count: 1,
      status: 'FAILED',
      ageHours: 2,
    });
    const threeHoursAgo = new Date(Date.now() - 3 * 3_600_000);
    await page
      .getByLabel('Failed since')
      .fill(
        new Date(threeHoursAgo.getTime() - threeHoursAgo.getTimezoneOffset() * 60_000)
          .toISOString()
          .slice(0, 16),
      );
    await page.getByRole('button', { name: 'Send again everything failed since then' }).click();
    await page.getByText('1 failed delivery is being sent again.').waitFor();
    const endpointReceiver = receiver;
    await eventually('the failed delivery sent again', () =>
      endpointReceiver.accepted().some((event) => event.id === lost) ? true : undefined,
    );

    await page.getByRole('button', { name: 'Delete this endpoint' }).click();
    await heading('Event endpoints');
    await page.getByText('No endpoint yet').waitFor();
    expect((await tenant.client.get(`/v1/event-endpoints/${endpointId}`)).status).toBe(404);
  });

  it('lists the events of one type, and looks a tracing id up across runs, events and deliveries', async () => {
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await heading('Events');
    await page.locator('#events-list table').waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption('sync.failed');
    await page.getByRole('button', { name: 'Show' }).click();
    const failedEvent = page.locator('#events-list tbody tr', { hasText: 'sync.failed' });
    await failedEvent.first().waitFor();
    expect(await page.locator('#events-list tbody tr', { hasNotText: 'sync.failed' }).count()).toBe(0);
    // The customer as the merchant knows them: by reference, linked to their page.
    await failedEvent.first().getByRole('link', { name: reference }).waitFor();
    await shot('events');

    await page.getByRole('link', { name: 'Look up a tracing id' }).click();
    await heading('Look up a tracing id');
    await page.getByLabel('Tracing id, customer reference or other id').fill(failedTracingId);
    requested.splice(0);
    await page.getByRole('button', { name: 'Look up' }).click();
    // The run carries the upstream's tracing id; its sync.failed event is found through the run.
    await page.locator('#lookup-runs').getByText(failedTracingId).waitFor();
    await page
      .locator('#lookup-events tbody tr', { hasText: 'sync.failed' })
      .getByRole('link', { name: reference })
      .waitFor();
    // Its endpoint was deleted above, and its delivery log with it.
    await page.getByText('No delivery has this id or is of those events.').waitFor();
    await shot('lookup');
    // The api searched (GET /v1/lookup): the page read no list of runs, events or customers to search.
    const asked = requested.map((url) => new URL(url));
    expect(asked.map((url) => url.pathname + url.search)).toContain(
      `/v1/lookup?id=${encodeURIComponent(failedTracingId)}`,
    );
    expect(asked.filter((url) => /\/(syncs|events|users)$/.test(url.pathname))).toEqual([]);

    // What a customer says first is who they are: their reference leads to them.
    await page.getByLabel('Tracing id, customer reference or other id').fill(reference);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator('#lookup-customers').getByRole('link', { name: reference }).click();
    await heading(`Customer ${reference}`);
  });

  it('finds a payment by the tracing id of a call the bank failed, on the lookup screen, with its calls', async () => {
    const created = dataOf<{ id: string; authorisationUrl: string }>(
      await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': uniqueName('pay') },
      }),
      201,
    );
    await atBank(stack, created.authorisationUrl);
    const { upstreamPaymentId } = dataOf<{ upstreamPaymentId: string }>(
      await tenant.client.get(`/v1/payments/${created.id}`),
    );
    // Every status check refused by the bank until one is logged under the payment, which so stays
    // unfinished: no payment.completed for the operator's test below to meet.
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const path = `/payments/${upstreamPaymentId}/details`;
    await sandbox.admin('POST', '/faults', { method: 'GET', path, status: 400, count: 1000 });
    const refused = await eventually('a refused status check logged', async () => {
      await stack.worker!.app.get(PaymentStatusPoller).pollDue();
      const calls = dataOf<UpstreamCall[]>(
        await tenant.client.get(`/v1/payments/${created.id}/upstream-calls`),
      );
      return calls.find((call) => call.errorCode !== null && call.tracingId);
    }).finally(() => sandbox.admin('DELETE', '/faults'));

    await page.getByRole('link', { name: 'Look up a tracing id' }).click();
    await heading('Look up a tracing id');
    await page.getByLabel('Tracing id, customer reference or other id').fill(refused.tracingId!);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator('#lookup-payments tbody tr', { hasText: created.id }).getByText('12.34 GBP').waitFor();
    await page.locator('#lookup-runs').getByText('No sync run has this tracing id or id.').waitFor();
    await page.locator('#lookup-payments summary', { hasText: `of the payment ${created.id}` }).click();
    const row = page.locator(`#calls-${created.id} tbody tr`, { hasText: refused.tracingId! });
    await row.getByText(`Failed: ${refused.errorCode}`).waitFor();
    await shot('lookup-payment');
  });

  it('shows where customers drop off, bank by bank, as bars and as the same figures in a table', async () => {
    await page.getByRole('link', { name: 'Conversion', exact: true }).click();
    await heading('Connection conversion');
    const row = page.locator('#conversion tbody tr', { hasText: 'sandbox-redirect' });
    await row.waitFor();
    // The set-up's one connection: started, authorised and first-synced, within a couple of minutes.
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(0, 8)).toEqual(['sandbox-redirect', '1', '1', '0', '0', '0', '0', '1']);
    expect(cells.slice(8)).toEqual([expect.stringMatching(/^\d+ s$/), expect.stringMatching(/^\d+ s$/)]);
    // The bars are for the eye: hidden from screen readers, who have the table.
    expect(await page.locator('#conversion .chart').getAttribute('aria-hidden')).toBe('true');
    expect(await page.locator('#conversion .chart .bank').count()).toBe(1);
    await page.getByLabel('Connections started in').selectOption('7');
    await page.getByRole('table', { name: 'Connections started in the last 7 days, by bank' }).waitFor();
    await shot('conversion');
  });

  it('shows where customers drop off in <bff-connect>, bank by bank, as bars and as the same figures in tables', async () => {
    const report = async (body: Record<string, string>) =>
      expect((await tenant.client.post('/v1/connect-funnel/reports', body)).status).toBe(204);
    // Two attempts at the sandbox bank, one connected and one failed, and one that never chose a bank.
    const [connected, failed] = [randomUUID(), randomUUID()];
    for (const attemptId of [connected, failed]) {
      await report({ attemptId, event: 'opened' });
      await report({ attemptId, event: 'chose', institutionId: 'sandbox-redirect' });
    }
    await report({ attemptId: connected, event: 'connected' });
    await report({ attemptId: failed, event: 'failed', reason: 'UPSTREAM_UNAVAILABLE' });
    await report({ attemptId: randomUUID(), event: 'opened' });
    const rows = dataOf<{ institutions: FunnelRow[] }>(
      await tenant.client.get(`/v1/insights/connect-funnel?from=${since(30)}`),
    ).institutions;
    expect(rows.find((row) => row.institutionId === 'sandbox-redirect')).toMatchObject({
      opened: 2,
      chose: 2,
      connected: 1,
      failed: 1,
      errors: [{ step: 'chose', reason: 'UPSTREAM_UNAVAILABLE', attempts: 1 }],
    });

    await page.getByRole('link', { name: 'Connect funnel', exact: true }).click();
    await heading('Connect funnel');
    const counts = page.getByRole('table', { name: 'Attempts opened in the last 30 days, by bank' });
    expect(await tableCells(counts, rows.length)).toEqual(funnelCells(rows));
    const errors = page.getByRole('table', { name: 'Errors met, by step' });
    expect(await tableCells(errors, funnelErrorCells(rows).length)).toEqual(funnelErrorCells(rows));
    // The bars are for the eye: hidden from screen readers, who have the tables.
    expect(await page.locator('#connect-funnel .chart').getAttribute('aria-hidden')).toBe('true');
    expect(await page.locator('#connect-funnel .chart .bank').count()).toBe(rows.length);
    await page.getByLabel('Attempts opened in').selectOption('7');
    await page.getByRole('table', { name: 'Attempts opened in the last 7 days, by bank' }).waitFor();
    await shot('connect-funnel');
  });

  it("shows each bank's error rate and slowest answers as bars and as the same figures in a table", async () => {
    type Figures = { institutionId: string; calls: number; errors: number; p95DurationMs: number };
    const banks = async () =>
      dataOf<{ institutions: Figures[] }>(await tenant.client.get('/v1/insights/institution-health'))
        .institutions;
    const errorsAt = (figures: Figures[]) =>
      figures.find((bank) => bank.institutionId === 'sandbox-redirect')?.errors ?? 0;
    const before = errorsAt(await banks());
    // A live read the bank fails twice (503) before the client's retry gets through: errors of the bank's.
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const path = '/accounts/*/real-time/transactions';
    await sandbox.admin('POST', '/faults', { method: 'GET', path, status: 503, count: 2 });
    try {
      expect((await tenant.client.get(`/v1/accounts/${accountId}/transactions/live`)).status).toBe(200);
    } finally {
      await sandbox.admin('DELETE', '/faults');
    }
    const after = await eventually('the live read’s calls written', async () => {
      const figures = await banks();
      return errorsAt(figures) === before + 2 ? figures : undefined;
    });
    const row = page.locator('#bank-health tbody tr', { hasText: 'sandbox-redirect' });
    // The stack's worker may call the bank between two reads: the page and the api agree on a quiet moment.
    await eventually('the page showing the api’s figures', async () => {
      // Away and back: the screen reads its figures as it opens.
      await page.getByRole('link', { name: 'Events', exact: true }).click();
      await heading('Events');
      await page.getByRole('link', { name: 'Bank health', exact: true }).click();
      await heading('Bank health');
      await row.waitFor();
      const shown = await row.locator('td').allTextContents();
      const bank = (await banks()).find((b) => b.institutionId === 'sandbox-redirect')!;
      expect(shown).toEqual([
        'sandbox-redirect',
        String(bank.calls),
        String(bank.errors),
        `${((bank.errors / bank.calls) * 100).toFixed(1)}%`,
        `${bank.p95DurationMs} ms`,
      ]);
      return true;
    });
    // The bars are for the eye: hidden from screen readers, who have the table.
    expect(await page.locator('#bank-health .chart').getAttribute('aria-hidden')).toBe('true');
    expect(await page.locator('#bank-health .chart .bank').count()).toBe(after.length);
    await page.getByLabel('Calls made').selectOption('1');
    await page.getByRole('table', { name: 'Calls to each bank today' }).waitFor();
    await shot('bank-health');
  });

  it('signs out, then the operator in, who disables and enables a merchant', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in');
    await page.getByText('You are signed out.').waitFor();

    await page.getByLabel('Operator token').fill(stack.api.config.api.adminToken);
    await page.getByRole('button', { name: 'Sign in as the operator' }).click();
    await heading('Merchants');
    const row = page.locator('#merchants-list tr', { hasText: 'Acme Shop' });
    await row.getByText('Enabled').waitFor();
    await shot('merchants');
    await page.getByRole('button', { name: 'Disable Acme Shop' }).click();
    await row.getByText(/^Disabled since/).waitFor();
    expect((await tenant.client.get('/v1/me')).status).toBe(403);
    await shot('merchant-disabled');
    await page.getByRole('button', { name: 'Enable Acme Shop' }).click();
    await row.getByText('Enabled').waitFor();
    expect((await tenant.client.get('/v1/me')).status).toBe(200);
  });

  it('on-boards a merchant, its first key shown once and gone after leaving the screen', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Beta Books');
    await page.getByLabel('Frontend origins (optional, one a line)').fill('https://books.example\n');
    await page.getByRole('button', { name: 'On-board' }).click();
    await page.getByText('Beta Books is on-boarded.').waitFor();
    const shown = page.getByLabel('New API key');
    const key = await shown.inputValue();
    expect(key).toMatch(/^mk_/);
    await page.locator('#new-key').getByText('it is shown only this once').waitFor();
    await page.locator('#merchants-list tr', { hasText: 'Beta Books' }).getByText('Enabled').waitFor();
    await shot('merchant-created');
    // The key works, and the page keeps it nowhere once the screen is left.
    const me = await fetch(`${api}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await heading('Audit log');
    await page.getByRole('link', { name: 'Merchants' }).click();
    await heading('Merchants');
    await page.locator('#merchants-list tr', { hasText: 'Beta Books' }).waitFor();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
  });

  it('renames a merchant, changes its origins, and issues and revokes one of its keys', async () => {
    await page.getByRole('link', { name: 'Beta Books' }).click();
    await heading('Beta Books');
    const origins = page.getByLabel('Frontend origins (optional, one a line)');
    expect(await origins.inputValue()).toBe('https://books.example');
    await page.getByLabel('Name', { exact: true }).fill('Beta Books Ltd');
    await origins.fill('https://books.example\nhttps://shop.books.example');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Beta Books Ltd is saved.').waitFor();
    await heading('Beta Books Ltd');
    const prisma = stack.api.app.get(PrismaService);
    const saved = await prisma.merchant.findFirstOrThrow({ where: { name: 'Beta Books Ltd' } });
    expect(saved.frontendOrigins).toEqual(['https://books.example', 'https://shop.books.example']);

    await page.getByLabel('Name of the new key (optional)').fill('operator test');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const shown = page.getByLabel('New API key');
    await shown.waitFor();
    expect(await shown.inputValue()).toMatch(/^mk_/);
    await page.locator('#merchant-keys tr', { hasText: 'operator test' }).getByText('Active').waitFor();
    await shot('merchant');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke the key operator test' }).click();
    await page.getByText('The key "operator test" is revoked.').waitFor();
    await page
      .locator('#merchant-keys tr', { hasText: 'operator test' })
      .getByText(/^Revoked/)
      .waitFor();
  });

  it("sets a merchant's sub-application the upstream knows, refuses one it does not, and clears it", async () => {
    const prisma = stack.api.app.get(PrismaService);
    const field = page.getByLabel('Sub-application id');
    expect(await field.inputValue()).toBe('');
    await page.getByText('Now: none: the merchant acts as the root application.').waitFor();

    // Refused: the api's words and tracing id next to the field, which keeps what was typed.
    await field.fill('no-such-app');
    await page.getByRole('button', { name: 'Set the sub-application' }).click();
    const message = page.locator('#merchant-sub-application-message');
    await message
      .getByText(
        /^Could not change the sub-application\. The upstream does not know this sub-application\. \(tracing id \S+\)$/,
      )
      .waitFor();
    expect(await field.inputValue()).toBe('no-such-app');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await focusedName(page)).toBe('INPUT Sub-application id');
    // The browser logs the refused request itself; nothing else went wrong.
    expect(consoleErrors.splice(0)).toEqual([expect.stringMatching(/status of 400/)]);

    // One the sandbox knows, as the field suggests it from the upstream's list.
    const suggestion = page.locator('#upstream-sub-applications option', { hasText: 'Sandbox merchant B' });
    await suggestion.waitFor({ state: 'attached' });
    const subApplicationId = (await suggestion.getAttribute('value'))!;
    await field.fill(subApplicationId);
    await page.getByRole('button', { name: 'Set the sub-application' }).click();
    await page
      .getByText(`Beta Books Ltd now acts as the sub-application Sandbox merchant B (${subApplicationId}).`)
      .waitFor();
    await page.getByText(`Now: Sandbox merchant B (${subApplicationId}).`).waitFor();
    const mapped = await prisma.merchant.findFirstOrThrow({ where: { name: 'Beta Books Ltd' } });
    expect(mapped.subApplicationId).toBe(subApplicationId);
    await shot('merchant-sub-application');

    await page.getByRole('button', { name: 'Use none (the root application)' }).click();
    await page.getByText('Beta Books Ltd now acts as the root application.').waitFor();
    await page.getByText('Now: none: the merchant acts as the root application.').waitFor();
    expect(await page.getByLabel('Sub-application id').inputValue()).toBe('');
    const cleared = await prisma.merchant.findFirstOrThrow({ where: { name: 'Beta Books Ltd' } });
    expect(cleared.subApplicationId).toBeNull();
  });

  it('settles a parked payment as completed, which the merchant hears of', async () => {
    // Parked as a payment is when a repeated send was refused: no check will move it any more.
    const prisma = stack.api.app.get(PrismaService);
    const consent = await createConsentRow(prisma, {
      id: tenant.userId,
      merchantId: tenant.merchant.merchant.id,
    });
    const parked = await createPaymentRow(prisma, consent, {
      status: 'SUBMITTING',
      nextStatusCheckAt: null,
      pollStopped: 'A repeated send was refused: 409',
      reference: 'Order 1001',
    });
    await page.getByRole('link', { name: 'Parked payments' }).click();
    await heading('Parked payments');
    const row = page.locator('#parked-list tbody tr', { hasText: parked.paymentIdempotencyId });
    await row.getByText('Acme Shop').waitFor();
    // What the merchant's support will quote: the customer's reference and the payment's.
    await row.getByRole('cell', { name: reference, exact: true }).waitFor();
    await row.getByRole('cell', { name: 'Order 1001', exact: true }).waitFor();
    await row.getByText('A repeated send was refused: 409').waitFor();
    await row.getByLabel('Note (the bank’s reference)').fill('Bank ref 42');
    await shot('parked-payments');
    await row.getByRole('button', { name: `Completed ${parked.paymentIdempotencyId}` }).click();
    await page.getByText(`The payment ${parked.paymentIdempotencyId} is settled as completed.`).waitFor();
    await page.getByText('No payment is waiting for a person.').waitFor();
    const settled = await prisma.payment.findUniqueOrThrow({ where: { id: parked.id } });
    expect(settled.status).toBe('COMPLETED');
    // The list shows an event once the outbox relay has numbered it, a moment after the settle commits.
    const events = await eventually('payment.completed relayed', async () => {
      const listed = dataOf<{ type: string; data: { paymentId: string } }[]>(
        await tenant.client.get('/v1/events?type=payment.completed'),
      );
      return listed.length > 0 ? listed : undefined;
    });
    expect(events.map((event) => event.data.paymentId)).toEqual([parked.id]);
  });

  it("says so where the upstream's categories cannot be read, and what failed, on the overview", async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    // A refusal the api does not retry: one failed read, the rest of the overview as usual.
    await sandbox.admin('POST', '/faults', {
      method: 'GET',
      path: '/webhook/events/categories',
      status: 400,
      count: 1,
    });
    try {
      // By keyboard alone: the navigation's link, then the new screen's heading has the focus.
      await tabTo(page, 'A Overview');
      await page.keyboard.press('Enter');
      await heading('Overview');
      expect(await focusedName(page)).toBe('H1 Overview');
      await page
        .locator('#upstream-categories p.error[role=alert]')
        .getByText(/^Could not load the upstream's categories\. .*\(tracing id \S+\)$/)
        .waitFor();
      await page
        .locator('#announce')
        .getByText('Loaded, but one part could not be: the page says why.')
        .waitFor();
    } finally {
      await sandbox.admin('DELETE', '/faults');
    }
    expect(consoleErrors.splice(0)).toEqual([expect.stringMatching(/status of 5\d\d|status of 4\d\d/)]);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await heading('Audit log');
  });

  it('shows the operator the consent counts, what expires unrenewed, and the upstream receiver', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await heading('Overview');
    await page.locator('#announce').getByText('Loaded.', { exact: true }).waitFor();
    await page.locator('#consent-counts').getByRole('cell', { name: 'Authorised' }).first().waitFor();
    await page.locator('#consent-counts').getByRole('cell', { name: 'Acme Shop' }).first().waitFor();
    await page.locator('#consent-expiring').locator('table, p.state').first().waitFor();
    await page.getByText("No merchant's event endpoint is failing or turned off.").waitFor();
    await page.locator('#upstream-categories table').waitFor();
    await page.locator('#upstream-receiver').locator('table, p.state').first().waitFor();
    expect(await page.getByRole('link', { name: 'The queue board' }).getAttribute('href')).toBe(
      '/admin/queues',
    );
    // The console's session opens the board: no second sign-in.
    const boardAnswer = page
      .context()
      .waitForEvent('response', (response) => new URL(response.url()).pathname === '/admin/queues');
    const [board] = await Promise.all([
      page.waitForEvent('popup'),
      page.getByRole('link', { name: 'The queue board' }).click(),
    ]);
    expect((await boardAnswer).status()).toBe(200);
    await board.close();
    expect(await page.getByRole('link', { name: 'The metrics dashboard' }).getAttribute('href')).toBe(
      'http://localhost:3001/',
    );
    expect(await page.getByRole('link', { name: 'The raw metrics' }).getAttribute('href')).toBe('/metrics');
    await shot('overview');
  });

  /** A merchant's own audit log, from its screen: the way a person gets to one merchant's entries. */
  async function auditOf(name: string) {
    await page.getByRole('link', { name: 'Merchants' }).click();
    await heading('Merchants');
    await page.locator('#merchants-list').getByRole('link', { name, exact: true }).click();
    await page.getByRole('link', { name: 'Its audit log' }).click();
    await heading('Audit log');
    await page.getByText(`Of ${name}.`).waitFor();
  }

  it("shows the operator's actions in the audit log, for one merchant", async () => {
    requested.splice(0);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await heading('Audit log');
    // Every merchant's, each entry naming its merchant (the page read no list of merchants).
    await page.locator('#audit-list tbody tr').first().waitFor();
    const named = await page.locator('#audit-list tbody tr > :nth-child(4)').allTextContents();
    expect(named).toContain('Acme Shop');
    expect(named.filter((text) => /^[0-9a-f-]{36}$/.test(text))).toEqual([]);
    expect(requested.filter((url) => new URL(url).pathname === '/admin/merchants')).toEqual([]);
    await auditOf('Acme Shop');
    const log = page.locator('#audit-list');
    await log.locator('tr', { hasText: 'Merchant disabled' }).getByText('The operator').waitFor();
    await log.locator('tr', { hasText: 'Merchant enabled' }).waitFor();
    await log.locator('tr', { hasText: 'API key revoked' }).waitFor();
    await log.locator('tr', { hasText: 'Event delivery tried again' }).waitFor();
    await log.locator('tr', { hasText: 'Event endpoint deleted' }).waitFor();
    await log.locator('tr', { hasText: 'Parked payment settled' }).getByText('status, note').waitFor();
    await shot('audit');
    expect(await log.locator('tbody tr', { hasNotText: 'Acme Shop' }).count()).toBe(0);
    await auditOf('Beta Books Ltd');
    await log.locator('tr', { hasText: 'Merchant on-boarded' }).getByText('The operator').waitFor();
    await log.locator('tr', { hasText: 'Merchant changed' }).getByText('name, frontendOrigins').waitFor();
    await log.locator('tr', { hasText: 'API key issued' }).waitFor();
    await log.locator('tr', { hasText: 'API key revoked' }).waitFor();
  });

  it("shows the operator every merchant's bank health and conversion, and one merchant's from its screen", async () => {
    type Health = { institutionId: string; calls: number; errors: number; p95DurationMs: number };
    type Counts = { institutionId: string; started: number; authorised: number; firstSynced: number };
    // What the screens ask for by default: the last 7 days' calls, the last 30 days' connections.
    const since = (days: number) => new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const read = async <T>(path: string, days: number, merchantId?: string) =>
      dataOf<{ institutions: T[] }>(
        await stack.operator.get(
          `${path}?from=${since(days)}${merchantId ? `&merchantId=${merchantId}` : ''}`,
        ),
      ).institutions;
    const rowsOf = (id: string) => page.locator(`#${id} tbody tr`);
    const cellsOf = async (id: string) =>
      Promise.all((await rowsOf(id).all()).map((row) => row.locator('td').allTextContents()));
    const healthRow = (b: Health) => [
      b.institutionId,
      String(b.calls),
      String(b.errors),
      `${((b.errors / b.calls) * 100).toFixed(1)}%`,
      `${b.p95DurationMs} ms`,
    ];

    // Every merchant's: the same banks and figures as the operator's API (nothing calls a bank meanwhile).
    await page.getByRole('link', { name: 'Bank health', exact: true }).click();
    await heading('Bank health');
    await page.getByText('the calls made for every merchant’s customers', { exact: false }).waitFor();
    const every = await read<Health>('/admin/insights/institution-health', 7);
    await rowsOf('bank-health')
      .nth(every.length - 1)
      .waitFor();
    expect(await cellsOf('bank-health')).toEqual(every.map(healthRow));

    // One merchant's, from its screen: its own figures, which are the merchant's own view of them.
    await page.getByRole('link', { name: 'Merchants' }).click();
    await page.locator('#merchants-list').getByRole('link', { name: 'Acme Shop', exact: true }).click();
    await page.getByRole('link', { name: 'Its bank health' }).click();
    await page.getByText('Of Acme Shop.').waitFor();
    const acme = await read<Health>('/admin/insights/institution-health', 7, tenant.merchant.merchant.id);
    expect(acme).toEqual(
      dataOf<{ institutions: Health[] }>(
        await tenant.client.get(`/v1/insights/institution-health?from=${since(7)}`),
      ).institutions,
    );
    await rowsOf('bank-health')
      .nth(acme.length - 1)
      .waitFor();
    expect(await cellsOf('bank-health')).toEqual(acme.map(healthRow));
    await shot('operator-bank-health');

    await page.getByRole('link', { name: 'Merchants' }).click();
    await page.locator('#merchants-list').getByRole('link', { name: 'Acme Shop', exact: true }).click();
    await page.getByRole('link', { name: 'Its conversion' }).click();
    await heading('Connection conversion');
    await page.getByText('Of Acme Shop.').waitFor();
    const counts = await read<Counts>('/admin/insights/conversion', 30, tenant.merchant.merchant.id);
    await rowsOf('conversion')
      .nth(counts.length - 1)
      .waitFor();
    const shown = await cellsOf('conversion');
    expect(shown.map((cells) => [cells[0], cells[1], cells[2], cells[7]])).toEqual(
      counts.map((c) => [c.institutionId, String(c.started), String(c.authorised), String(c.firstSynced)]),
    );
    await page.getByRole('link', { name: "Every merchant's connections" }).click();
    await page.getByText('Where every merchant’s customers drop off', { exact: false }).waitFor();
    const everyCounts = await read<Counts>('/admin/insights/conversion', 30);
    await rowsOf('conversion')
      .nth(everyCounts.length - 1)
      .waitFor();
    expect((await cellsOf('conversion')).map((cells) => cells[0])).toEqual(
      everyCounts.map((c) => c.institutionId),
    );
  });

  it("shows the operator every merchant's connect funnel, and one merchant's from its screen", async () => {
    const read = async (merchantId?: string) =>
      dataOf<{ institutions: FunnelRow[] }>(
        await stack.operator.get(
          `/admin/insights/connect-funnel?from=${since(30)}${merchantId ? `&merchantId=${merchantId}` : ''}`,
        ),
      ).institutions;
    const counts = page.getByRole('table', { name: 'Attempts opened in the last 30 days, by bank' });

    // One merchant's, from its screen (the attempts the merchant's test reported): its own view of them.
    await page.getByRole('link', { name: 'Merchants' }).click();
    await page.locator('#merchants-list').getByRole('link', { name: 'Acme Shop', exact: true }).click();
    await page.getByRole('link', { name: 'Its connect funnel' }).click();
    await heading('Connect funnel');
    await page.getByText('Of Acme Shop.').waitFor();
    const acme = await read(tenant.merchant.merchant.id);
    expect(acme).toEqual(
      dataOf<{ institutions: FunnelRow[] }>(
        await tenant.client.get(`/v1/insights/connect-funnel?from=${since(30)}`),
      ).institutions,
    );
    expect(acme.length).toBeGreaterThan(0);
    expect(await tableCells(counts, acme.length)).toEqual(funnelCells(acme));
    const errors = page.getByRole('table', { name: 'Errors met, by step' });
    expect(await tableCells(errors, funnelErrorCells(acme).length)).toEqual(funnelErrorCells(acme));
    await shot('operator-connect-funnel');

    await page.getByRole('link', { name: "Every merchant's attempts" }).click();
    await page.getByText('Where every merchant’s customers drop off', { exact: false }).waitFor();
    const every = await read();
    expect(await tableCells(counts, every.length)).toEqual(funnelCells(every));
    // The operator's navigation leads here too.
    await page.getByRole('link', { name: 'Connect funnel', exact: true }).waitFor();
  });

  it('pages the audit log past its first 50 entries by keyboard, the new rows taking the focus', async () => {
    // 51 entries of one merchant: its on-boarding, the oldest, is on the second page.
    const gamma = dataOf<{ merchant: { id: string } }>(
      await stack.operator.post('/admin/merchants', { name: 'Gamma Games' }),
      201,
    ).merchant.id;
    for (let i = 1; i <= 50; i += 1) {
      dataOf(
        await stack.operator.patch(`/admin/merchants/${gamma}`, {
          name: i === 50 ? 'Gamma Games' : `Gamma ${i}`,
        }),
      );
    }
    await auditOf('Gamma Games');
    const rows = page.locator('#audit-list tbody tr');
    await page.locator('#audit-list').getByText('50 shown so far.').waitFor();
    expect(await rows.count()).toBe(50);
    expect(await rows.filter({ hasText: 'Merchant on-boarded' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Show more' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#audit-list').getByText('That is all of them: 51.').waitFor();
    expect(await rows.count()).toBe(51);
    await rows.nth(50).getByText('Merchant on-boarded').waitFor();
    expect(await focusedName(page)).toMatch(/^TR .*Merchant on-boarded/);
    await page.locator('#announce').getByText('1 more shown, 51 in all.').waitFor();
    await shot('audit-paged');
  });
});

/**
 * The failed calls a call log on the page shows, newest first: each one's operation, what failed in
 * words ("Failed: INSTITUTION") and its tracing id. Waits for the log's first failed call.
 */
async function failedCallsShown(log: Locator): Promise<string[][]> {
  const rows = log.locator('tbody tr', { hasText: 'Failed:' });
  await rows.first().waitFor();
  const shown: string[][] = [];
  for (let i = 0; i < (await rows.count()); i += 1) {
    const cells = await rows.nth(i).locator('td').allInnerTexts();
    shown.push([cells[1], cells[4], cells[7]]);
  }
  return shown;
}

// ---- accessibility checks, written by hand (no axe): run in the page, as strings (no DOM types here) ----

/** The focused element: its tag and accessible name (label, aria-label or text), e.g. `BUTTON Save`. */
async function focusedName(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return 'BODY';
    const label = e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].textContent : '');
    return (e.tagName + ' ' + (label || e.textContent || '')).replace(/\\s+/g, ' ').trim();
  })()`);
}

/** Presses Tab until `name` (as `focusedName` says it) has the focus; at most 60 presses. */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 60; i += 1) {
    await page.keyboard.press('Tab');
    if ((await focusedName(page)) === name) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/**
 * What the page shows that fails the console's accessibility rules: a field, button or link with no
 * accessible name, a positive tabindex, text under 4.5:1 contrast with the background it sits on, and a
 * page wider than the window (the test's 1280×800). Empty when all is well.
 */
async function accessibilityProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const problems = [];
    const shown = (e) => e.checkVisibility({ visibilityProperty: true });
    const say = (e) => e.tagName + (e.id ? '#' + e.id : '') + ' "' + (e.textContent || '').trim().slice(0, 40) + '"';
    const text = (id) => document.getElementById(id)?.textContent.trim() ?? '';
    for (const e of document.querySelectorAll('input, select, textarea, button, a[href]')) {
      if (!shown(e) || e.type === 'hidden') continue;
      const named =
        (e.getAttribute('aria-label') ?? '').trim() ||
        (e.getAttribute('aria-labelledby') ?? '').split(/\\s+/).map(text).join('') ||
        [...(e.labels ?? [])].map((l) => l.textContent.trim()).join('') ||
        (['BUTTON', 'A'].includes(e.tagName) ? e.textContent.trim() : '');
      if (!named) problems.push('no accessible name: ' + say(e) + ' ' + e.outerHTML.slice(0, 80));
    }
    for (const e of document.querySelectorAll('[tabindex]')) {
      if (Number(e.getAttribute('tabindex')) > 0) problems.push('positive tabindex: ' + say(e));
    }
    const rgba = (c) => {
      const [r, g, b, a = 1] = c.match(/[\\d.]+/g).map(Number);
      return { r, g, b, a };
    };
    const channel = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    const luminance = ({ r, g, b }) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    const over = (top, below) => ({
      r: top.r * top.a + below.r * (1 - top.a),
      g: top.g * top.a + below.g * (1 - top.a),
      b: top.b * top.a + below.b * (1 - top.a),
      a: 1,
    });
    /** The colour behind an element: its own background, or its nearest ancestor's, over white. */
    const behind = (e) => {
      const layers = [];
      for (let n = e; n; n = n.parentElement) {
        const c = rgba(getComputedStyle(n).backgroundColor);
        if (c.a > 0) layers.push(c);
        if (c.a === 1) break;
      }
      return layers.reverse().reduce((below, top) => over(top, below), { r: 255, g: 255, b: 255, a: 1 });
    };
    for (const e of document.body.querySelectorAll('*')) {
      const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !shown(e) || e.closest('.visually-hidden, :disabled, option, datalist')) continue;
      const bg = behind(e);
      const fg = over(rgba(getComputedStyle(e).color), bg);
      const [light, dark] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
      const ratio = (light + 0.05) / (dark + 0.05);
      if (ratio < 4.5) problems.push('contrast ' + ratio.toFixed(2) + ':1 of ' + say(e));
    }
    if (document.documentElement.scrollWidth > window.innerWidth) {
      problems.push('wider than the window: ' + document.documentElement.scrollWidth + 'px');
    }
    return problems;
  })()`);
}
