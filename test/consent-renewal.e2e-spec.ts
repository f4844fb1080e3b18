import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { ConsentExpiryScanService } from '#libs/domain/consents';
import { connectBank, decideAtBank, onboard, SandboxHttp, type Tenant, useStack } from './kit/index.js';

const DAY = 86_400_000;

/**
 * A completed re-authorisation renews the consent (issue 24, item 9): the bank grants 90 days from the
 * approval, we store that expiry, and the expiry scan never asks the same consent again in a loop. The
 * scan is called with the "now" it reads, never waited for.
 */
describe('consent renewal: a completed re-authorisation renews, and the scan never loops', () => {
  const stack = useStack({ ownDatabase: 'renewal' });
  let prisma: PrismaService;
  let sandbox: SandboxHttp;
  let lifecycle: ConsentExpiryScanService;

  beforeAll(() => {
    prisma = stack.api.app.get(PrismaService);
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    lifecycle = stack.api.app.get(ConsentExpiryScanService);
  });

  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  // Re-authorised before expiry as asked, however short: the scan's renewal is what is tested here.
  const connectExpiringIn = async (tenant: Tenant, ms: number) => {
    const terms = { expiresAt: new Date(Date.now() + ms).toISOString(), autoReauthorise: true };
    return connectBank(apps(), tenant.merchant.apiKey.key, tenant.userId, 'sandbox-redirect', terms);
  };
  const eventsOf = async (tenant: Tenant, consentId: string) =>
    (
      await prisma.merchantEvent.findMany({
        where: { merchantId: tenant.merchant.merchant.id },
        orderBy: { seq: 'asc' },
      })
    )
      .filter((e) => (e.data as { consentId?: string }).consentId === consentId)
      .map((e) => e.type);
  const consentOf = (id: string) => prisma.consent.findUniqueOrThrow({ where: { id } });

  it('renews for 90 days from the approval, stores that expiry, and the next scans ask nothing more', async () => {
    const tenant = await onboard(stack);
    const consentId = await connectExpiringIn(tenant, 6 * DAY);
    const asked = await lifecycle.scanExpiry(new Date());
    expect(asked.reauthorisationsRequested).toBe(1);
    const pending = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
    expect(pending.status).toBe('AWAITING_RE_AUTHORIZATION');

    const approvedAt = Date.now();
    const back = await decideAtBank(apps(), pending.reauthorisationUrl);
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
    const renewed = await consentOf(consentId);
    expect(renewed.status).toBe('AUTHORIZED');
    // Spec part 1, rule 2 and part 8: up to 90 days, counted here from the approval.
    expect(
      Math.abs(renewed.expiresAt!.getTime() - (renewed.authorizedAt!.getTime() + 90 * DAY)),
    ).toBeLessThan(1_000);
    expect(renewed.authorizedAt!.getTime()).toBeGreaterThanOrEqual(approvedAt - 1_000);
    const view = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
    expect(view.expiresAt).toBe(renewed.expiresAt!.toISOString());

    // A scan a minute later, and one a day later: nothing to ask, nothing to warn of.
    for (const later of [60_000, DAY]) {
      const scan = await lifecycle.scanExpiry(new Date(Date.now() + later));
      expect(scan.reauthorisationsRequested, `scan ${later} ms later`).toBe(0);
      expect((await consentOf(consentId)).status).toBe('AUTHORIZED');
    }
    expect(await eventsOf(tenant, consentId)).toEqual([
      'CONSENT_AUTHORIZED',
      'CONSENT_EXPIRING',
      'CONSENT_REAUTHORISATION_REQUIRED',
      'CONSENT_AUTHORIZED',
    ]);
  });

  it('tells the merchant once when a completed re-authorisation did not extend the consent, and never asks again', async () => {
    // A bank that keeps the expiry on a re-authorisation (the sandbox's quirk): what the scan must survive.
    await sandbox.withQuirks({ reauthorisationKeepsExpiry: true }, async () => {
      const tenant = await onboard(stack);
      const consentId = await connectExpiringIn(tenant, 6 * DAY);
      const expiresAt = (await consentOf(consentId)).expiresAt!;
      expect((await lifecycle.scanExpiry(new Date())).reauthorisationsRequested).toBe(1);
      const pending = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
      const back = await decideAtBank(apps(), pending.reauthorisationUrl);
      expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');

      const stalled = await consentOf(consentId);
      expect(stalled.status).toBe('AUTHORIZED');
      expect(stalled.expiresAt).toEqual(expiresAt);
      const view = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
      expect(view.reauthorisationNotExtendedAt).toEqual(expect.any(String));
      // Scan after scan, up to the expiry: no new link, no second warning; then it expires, once.
      for (const later of [60_000, 2 * 60_000, DAY, 3 * DAY]) {
        const scan = await lifecycle.scanExpiry(new Date(Date.now() + later));
        expect([scan.reauthorisationsRequested, scan.warned], `scan ${later} ms later`).toEqual([0, 0]);
        expect((await consentOf(consentId)).status).toBe('AUTHORIZED');
      }
      await lifecycle.scanExpiry(new Date(expiresAt.getTime() + 1_000));
      expect(await eventsOf(tenant, consentId)).toEqual([
        'CONSENT_AUTHORIZED',
        'CONSENT_EXPIRING',
        'CONSENT_REAUTHORISATION_REQUIRED',
        'CONSENT_AUTHORIZED',
        'CONSENT_REAUTHORISATION_NOT_EXTENDED',
        'CONSENT_EXPIRED',
      ]);
      const told = await prisma.merchantEvent.findFirstOrThrow({
        where: { type: 'CONSENT_REAUTHORISATION_NOT_EXTENDED', merchantId: tenant.merchant.merchant.id },
      });
      expect(told.data).toMatchObject({
        consentId,
        status: 'AUTHORIZED',
        expiresAt: expiresAt.toISOString(),
      });
    });
  });

  it('lets the merchant renew by hand after a renewal that did not extend; one that extends clears the mark', async () => {
    const { tenant, consentId } = await sandbox.withQuirks({ reauthorisationKeepsExpiry: true }, async () => {
      const tenant = await onboard(stack);
      const consentId = await connectExpiringIn(tenant, 5 * DAY);
      await lifecycle.scanExpiry(new Date());
      const pending = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
      await decideAtBank(apps(), pending.reauthorisationUrl);
      expect((await consentOf(consentId)).reauthorisationNotExtendedAt).not.toBeNull();
      return { tenant, consentId };
    });
    const asked = await tenant.client.post(`/v1/consents/${consentId}/reauthorise`, {
      redirectUrl: 'https://app.merchant.example/banks/done',
    });
    expect(asked.status).toBe(201);
    await decideAtBank(apps(), asked.body.data.authorisationUrl);
    const renewed = await consentOf(consentId);
    expect(renewed.reauthorisationNotExtendedAt).toBeNull();
    expect(renewed.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 80 * DAY);
    const view = (await tenant.client.get(`/v1/consents/${consentId}`)).body.data;
    expect(view).not.toHaveProperty('reauthorisationNotExtendedAt');
  });
});
