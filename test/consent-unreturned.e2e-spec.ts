import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { ConsentReconciliationService } from '#libs/domain/consents';
import { bankRedirect, bodies, dataOf, onboard, type Tenant, useStack } from './kit/index.js';

const HOUR = 3_600_000;

/**
 * A redirect consent whose user never comes back through the callback (the tab closed at the bank, the
 * redirect lost) is settled by reconciliation from the bank's own record once its callback state has
 * lapsed: approved at the bank → authorised as the callback would have; denied → REJECTED; never decided
 * → EXPIRED, AUTHORISATION_ABANDONED. Time is moved by calling the job with a later "now", never waited.
 */
describe('consents whose user never came back from the bank', () => {
  // Its own database: reconciliation acts on every consent there is.
  const stack = useStack({ ownDatabase: 'consent_unreturned' });
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await onboard(stack);
  });
  const consents = () => stack.api.app.get(PrismaService).consent;
  const reconcile = (now: Date) => stack.api.app.get(ConsentReconciliationService).reconcile(now);

  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  const started = async () => {
    const created = await tenant.client.post(
      `/v1/users/${tenant.userId}/consents`,
      bodies.consent({ institutionId: 'sandbox-redirect' }),
      { headers: { 'idempotency-key': randomUUID() } },
    );
    return dataOf<{ id: string; authorisationUrl: string }>(created, 201);
  };
  const consent = (id: string) => consents().findUniqueOrThrow({ where: { id } });
  const eventTypes = async (consentId: string) =>
    (
      await stack.api.app.get(PrismaService).merchantEvent.findMany({
        where: { merchantId: tenant.merchant.merchant.id },
        orderBy: { seq: 'asc' },
      })
    )
      .filter((e) => (e.data as { consentId?: string }).consentId === consentId)
      .map((e) => e.type);

  it('settles each from the bank once the callback has lapsed, and only then, once', async () => {
    const approved = await started();
    const denied = await started();
    const undecided = await started();
    // Decided at the bank; the browser never follows the redirect back to the api.
    await bankRedirect(apps(), approved.authorisationUrl, 'approve');
    await bankRedirect(apps(), denied.authorisationUrl, 'deny');

    // Within the callback's window nothing moves: the user may still come back.
    const early = await reconcile(new Date(Date.now() + HOUR / 2));
    expect(early.unreturned).toEqual({ authorised: 0, ended: 0, abandoned: 0, failed: 0 });
    for (const { id } of [approved, denied, undecided])
      expect((await consent(id)).status).toBe('AWAITING_AUTHORIZATION');

    const later = new Date(Date.now() + 2 * HOUR);
    expect((await reconcile(later)).unreturned).toEqual({
      authorised: 1,
      ended: 1,
      abandoned: 1,
      failed: 0,
    });
    const authorised = await consents().findUniqueOrThrow({
      where: { id: approved.id },
      include: { accounts: true },
    });
    expect(authorised.status).toBe('AUTHORIZED');
    expect(authorised.accounts.length).toBeGreaterThan(0);
    expect(await eventTypes(approved.id)).toEqual(['CONSENT_AUTHORIZED']);

    expect((await consent(denied.id)).status).toBe('REJECTED');
    expect(await eventTypes(denied.id)).toEqual(['CONSENT_FAILED']);

    const abandoned = await consent(undecided.id);
    expect([abandoned.status, abandoned.lastErrorCode]).toEqual(['EXPIRED', 'AUTHORISATION_ABANDONED']);
    expect(await eventTypes(undecided.id)).toEqual(['CONSENT_FAILED']);

    // Again, as another worker's run would: nothing left to settle, no second event.
    expect((await reconcile(later)).unreturned).toEqual({
      authorised: 0,
      ended: 0,
      abandoned: 0,
      failed: 0,
    });
    for (const { id } of [approved, denied, undecided]) expect(await eventTypes(id)).toHaveLength(1);
  });
});
