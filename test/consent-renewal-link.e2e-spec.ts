import { beforeAll, describe, expect, it } from 'vitest';
import { tenantOfRecord } from '#libs/context';
import { PrismaService } from '#libs/database';
import { ConsentRenewalLinkService } from '#libs/domain/consents';
import { dataOf, decideAtBank, onboard, type Tenant, useStack } from './kit/index.js';

const DAY = 86_400_000;
const PSU = { 'psu-id': 'user-1', 'psu-corporate-id': 'corp-1', 'psu-ip-address': '203.0.113.7' };

interface ConsentBody {
  id: string;
  status: string;
  expiresAt: string;
  reauthorisationUrl?: string;
}

/**
 * Our renewal link at a bank that needs the user present (issue 81, 1). Opening it (a mail scanner's GET
 * or HEAD, a prefetch, a reload) changes nothing: only the user's press of its button asks the bank,
 * which suspends access until they approve. Once renewed, the link says so and does nothing, however
 * often it is opened or its button pressed: before, every GET asked the bank again and suspended the
 * renewed consent.
 */
describe('the user-present renewal link', () => {
  const stack = useStack();
  let prisma: PrismaService;
  let renewal: ConsentRenewalLinkService;

  beforeAll(() => {
    prisma = stack.api.app.get(PrismaService);
    renewal = stack.api.app.get(ConsentRenewalLinkService);
  });

  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  const consentOf = async (tenant: Tenant, id: string) =>
    dataOf<ConsentBody>(await tenant.client.get(`/v1/consents/${id}`));
  const reauthorisationEvents = async (tenant: Tenant, consentId: string) =>
    (
      await prisma.merchantEvent.findMany({
        where: { merchantId: tenant.merchant.merchant.id, type: 'CONSENT_REAUTHORISATION_REQUIRED' },
      })
    ).filter((e) => (e.data as { consentId?: string }).consentId === consentId);

  /** A consent at the user-present bank, approved, in its last week and offered our link. */
  async function offeredLink(tenant: Tenant) {
    const created = dataOf<{ id: string; authorisationUrl: string }>(
      await tenant.client.post(
        `/v1/users/${tenant.userId}/consents`,
        {
          institutionId: 'sandbox-psu-business',
          redirectUrl: 'https://app.merchant.example/banks/done',
          expiresAt: new Date(Date.now() + 6 * DAY).toISOString(),
          autoReauthorise: true,
        },
        { headers: PSU },
      ),
      201,
    );
    const back = await decideAtBank(apps(), created.authorisationUrl);
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
    // What the expiry scan does for this consent (the scan itself would act on every consent there is).
    const merchantId = tenantOfRecord({ merchantId: tenant.merchant.merchant.id });
    expect(await renewal.reauthoriseBeforeExpiry(merchantId, created.id)).toBe('link');
    const offered = await consentOf(tenant, created.id);
    const link = new URL(offered.reauthorisationUrl!);
    return { id: created.id, offered, url: `${stack.api.url}${link.pathname}${link.search}` };
  }

  /** The link opened as a browser or a scanner would, the answer read whole. */
  async function open(url: string, method: 'GET' | 'HEAD' = 'GET') {
    const response = await fetch(url, { method, redirect: 'manual' });
    return { response, html: await response.text() };
  }

  /** The page's button pressed: its form posted as a browser posts it. */
  async function press(url: string, html: string) {
    const form = /<form[^>]*method="post"[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
    expect(form, html).not.toBeNull();
    const fields = new URLSearchParams();
    for (const input of form![2].matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi)) {
      fields.append(input[1], input[2].replaceAll('&amp;', '&').replaceAll('&quot;', '"'));
    }
    const response = await fetch(new URL(form![1], url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    return { response, html: await response.text() };
  }

  it('acts only on the user’s press, and once renewed does nothing, whoever opens it', async () => {
    const tenant = await onboard(stack);
    const { id, offered, url } = await offeredLink(tenant);

    // A mail client's link scanner, a prefetch: the page only, nothing asked of the bank.
    expect((await open(url, 'HEAD')).response.status).toBe(200);
    const page = await open(url);
    expect(page.response.status).toBe(200);
    expect(page.response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.response.headers.get('cache-control')).toBe('no-store');
    expect(await consentOf(tenant, id)).toMatchObject({
      status: 'AUTHORIZED',
      reauthorisationUrl: offered.reauthorisationUrl,
    });

    // The user presses the button: the bank is asked now, and their browser goes on to it.
    const pressed = await press(url, page.html);
    expect(pressed.response.status).toBe(303);
    expect((await consentOf(tenant, id)).status).toBe('AWAITING_RE_AUTHORIZATION');
    const back = await decideAtBank(apps(), pressed.response.headers.get('location')!);
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
    const renewed = await consentOf(tenant, id);
    expect(renewed.status).toBe('AUTHORIZED');
    // Offered, then asked of the bank on the press: the merchant was told of each.
    const told = (await reauthorisationEvents(tenant, id)).length;
    expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(offered.expiresAt));

    // Opened again (a reload, a second click, a scanner), the button pressed again: it says so, and
    // the renewed consent stays renewed, with no new call for the merchant to answer.
    for (const method of ['HEAD', 'GET'] as const) {
      expect((await open(url, method)).response.status).toBe(200);
    }
    const again = await open(url);
    expect(again.html).toMatch(/already renewed/i);
    expect(again.html).not.toMatch(/<form/i);
    const pressedAgain = await press(url, page.html);
    expect(pressedAgain.response.status).toBe(200);
    expect(pressedAgain.html).toMatch(/already renewed/i);
    expect(await consentOf(tenant, id)).toMatchObject({ status: 'AUTHORIZED', expiresAt: renewed.expiresAt });
    expect(await reauthorisationEvents(tenant, id)).toHaveLength(told);

    // A forged link is refused, opened or pressed.
    const forged = `${new URL(url).origin}${new URL(url).pathname}?link=nope`;
    expect((await open(forged)).response.status).toBe(400);
    expect((await press(url, page.html.replace(/value="[^"]*"/, 'value="nope"'))).response.status).toBe(400);
  }, 90_000);

  it('a press while the renewal waits at the bank sends the user there again', async () => {
    const tenant = await onboard(stack);
    const { id, url } = await offeredLink(tenant);
    const page = await open(url);
    expect((await press(url, page.html)).response.status).toBe(303);
    // The user closed the bank's tab and comes back through the link: still their renewal to finish.
    const reopened = await open(url);
    expect(reopened.html).toMatch(/<form/i);
    const pressed = await press(url, reopened.html);
    expect(pressed.response.status).toBe(303);
    const back = await decideAtBank(apps(), pressed.response.headers.get('location')!);
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
    expect((await consentOf(tenant, id)).status).toBe('AUTHORIZED');
  }, 90_000);
});
