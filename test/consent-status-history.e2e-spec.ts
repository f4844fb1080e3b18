import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { tenantOfRecord } from '#libs/context';
import { DatabasePool, PrismaService } from '#libs/database';
import {
  ConsentStateRepository,
  ConsentStatus,
  type ConsentStatusChangeView,
  ConsentStatusHistoryRepository,
} from '#libs/domain/consents';
import { uuidV7 } from '#libs/ids';
import {
  assertProperty,
  createConsentRow,
  dataOf,
  decideAtBank,
  type ErrorBody,
  onboard,
  propertyTimeout,
  sessionToken,
  type Tenant,
  uniqueName,
  useStack,
} from './kit/index.js';

interface Change {
  from: string | null;
  to: string;
  changedAt: string;
}

interface Page {
  data: Change[];
  meta: { count: number; nextCursor: string | null };
  links?: { next: string };
}

/**
 * A consent's status history (GET /v1/consents/{consentId}/history): recorded by a trigger on `consents`,
 * so every status a consent takes is there, in order, whoever wrote it, and nothing else is.
 */
describe('consent status history', () => {
  const stack = useStack();
  let owner: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    owner = await onboard(stack);
    other = await onboard(stack);
  });

  const historyOf = async (consentId: string, client = owner.client) =>
    dataOf<Change[]>(await client.get(`/v1/consents/${consentId}/history`));

  /** What the properties write consents with, as the owner's merchant: every status there is. */
  const writers = () => {
    const merchantId = tenantOfRecord({ merchantId: owner.merchant.merchant.id });
    return {
      prisma: stack.api.app.get(PrismaService),
      db: stack.api.app.get(DatabasePool),
      history: stack.api.app.get(ConsentStatusHistoryRepository),
      merchantId,
      ownerRow: { id: owner.userId, merchantId },
      statuses: fc.constantFrom(...Object.values(ConsentStatus)),
    };
  };

  it('shows a consent created, authorised at the bank and revoked, in order, with their times', async () => {
    const started = Date.now();
    const created = dataOf<{ id: string; status: string; authorisationUrl: string }>(
      await owner.client.post(`/v1/users/${owner.userId}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: 'https://app.merchant.example/banks/done',
      }),
      201,
    );
    expect(created.status).toBe('AWAITING_AUTHORIZATION');
    expect(await historyOf(created.id)).toEqual([
      { from: null, to: 'AWAITING_AUTHORIZATION', changedAt: expect.any(String) },
    ]);

    const back = await decideAtBank(
      { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
      created.authorisationUrl,
    );
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
    expect((await owner.client.delete(`/v1/consents/${created.id}`)).status).toBe(204);
    // Revoking again is harmless, and a write of the status the consent has already records nothing.
    expect((await owner.client.delete(`/v1/consents/${created.id}`)).status).toBe(204);
    await stack.api.app
      .get(PrismaService)
      .consent.update({ where: { id: created.id }, data: { status: 'REVOKED' } });

    const history = await historyOf(created.id);
    expect(history.map(({ from, to }) => ({ from, to }))).toEqual([
      { from: null, to: 'AWAITING_AUTHORIZATION' },
      { from: 'AWAITING_AUTHORIZATION', to: 'AUTHORIZED' },
      { from: 'AUTHORIZED', to: 'REVOKED' },
    ]);
    const times = history.map((change) => Date.parse(change.changedAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Stored to the millisecond: the first may round down to just before `started`.
    expect(times[0]).toBeGreaterThanOrEqual(started - 1);
    expect(times[2]).toBeLessThanOrEqual(Date.now());
    const consent = dataOf<{ revokedAt: string; authorizedAt: string }>(
      await owner.client.get(`/v1/consents/${created.id}`),
    );
    expect(Date.parse(consent.revokedAt)).toBeLessThanOrEqual(times[2]);

    // Pages of two, oldest first: the second page follows on from the first, and says it is the last.
    const firstPage = (await owner.client.get(`/v1/consents/${created.id}/history?limit=2`)).body as Page;
    expect(firstPage.data).toEqual(history.slice(0, 2));
    expect(firstPage.meta).toMatchObject({ count: 2, nextCursor: expect.any(String) });
    expect(firstPage.links?.next).toBe(
      `/v1/consents/${created.id}/history?limit=2&cursor=${firstPage.meta.nextCursor}`,
    );
    const second = (await owner.client.get(firstPage.links!.next)).body as Page;
    expect(second.data).toEqual(history.slice(2));
    expect(second.meta).toMatchObject({ count: 1, nextCursor: null });
    expect(second.links).toBeUndefined();

    // The user's own session reads it too; another user's session of the same merchant does not.
    const mine = stack.anonymous.as(
      sessionToken(stack.api.config, { merchantId: owner.merchant.merchant.id, userId: owner.userId }),
    );
    expect(await historyOf(created.id, mine)).toEqual(history);
    const someoneElse = dataOf<{ id: string }>(
      await owner.client.post('/v1/users', { reference: uniqueName('someone-else') }),
      201,
    );
    const theirs = stack.anonymous.as(
      sessionToken(stack.api.config, { merchantId: owner.merchant.merchant.id, userId: someoneElse.id }),
    );
    expect((await theirs.get(`/v1/consents/${created.id}/history`)).status).toBe(404);

    // Another merchant's consent is not found, like an unknown id or one that is no id at all.
    for (const [client, id] of [
      [other.client, created.id],
      [owner.client, uuidV7()],
      [owner.client, 'not-a-consent'],
    ] as const) {
      const answer = await client.get<ErrorBody>(`/v1/consents/${id}/history`);
      expect({ status: answer.status, code: answer.body.error.code }).toEqual({
        status: 404,
        code: 'NOT_FOUND',
      });
    }
    // A malformed page is refused, naming what is wrong with it.
    for (const query of [
      'cursor=not*a*cursor',
      `cursor=${Buffer.from('abc').toString('base64url')}`,
      'limit=0',
    ]) {
      const answer = await owner.client.get<ErrorBody>(`/v1/consents/${created.id}/history?${query}`);
      expect({ status: answer.status, code: answer.body.error.code }).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
    // Without credentials, nothing.
    expect((await stack.anonymous.get(`/v1/consents/${created.id}/history`)).status).toBe(401);
  });

  it(
    'property: whatever statuses are written, and however, the history is each change of status once, chained',
    async () => {
      const { prisma, db, history, merchantId, ownerRow, statuses } = writers();
      const state = stack.api.app.get(ConsentStateRepository);
      // The ways the app writes a consent: Prisma, hand-written SQL (one row, or a batch naming it), the
      // state repository's guarded revocation (which may find the consent elsewhere and change nothing),
      // and writes of other columns only.
      const write = fc.oneof(
        fc.record({ by: fc.constant('prisma' as const), status: statuses }),
        fc.record({ by: fc.constant('sql' as const), status: statuses }),
        fc.record({ by: fc.constant('sql-batch' as const), status: statuses }),
        fc.record({ by: fc.constant('revoke' as const) }),
        fc.record({ by: fc.constant('other-columns' as const) }),
      );
      await assertProperty(
        fc.asyncProperty(
          statuses,
          fc.array(write, { maxLength: 12 }),
          fc.integer({ min: 1, max: 4 }),
          async (initial, writes, pageSize) => {
            const consent = await createConsentRow(prisma, ownerRow, 'sandbox-redirect', initial);
            const held = [initial as string];
            for (const step of writes) {
              if (step.by === 'prisma')
                await prisma.consent.update({ where: { id: consent.id }, data: { status: step.status } });
              if (step.by === 'sql')
                await db.pool.query('UPDATE consents SET status = $2 WHERE id = $1', [
                  consent.id,
                  step.status,
                ]);
              if (step.by === 'sql-batch')
                await db.pool.query(
                  `UPDATE consents SET status = CASE WHEN id = $1 THEN $2 ELSE status END
                     WHERE merchant_id = $3 AND user_id = $4`,
                  [consent.id, step.status, merchantId, owner.userId],
                );
              if (step.by === 'revoke') await state.markRevoked(merchantId, consent.id);
              if (step.by === 'other-columns')
                await db.pool.query('UPDATE consents SET reconciled_at = now() WHERE id = $1', [consent.id]);
              const now = await prisma.consent.findUniqueOrThrow({
                where: { id: consent.id },
                select: { status: true },
              });
              held.push(now.status);
            }
            const changes: ConsentStatusChangeView[] = [];
            let after: string | undefined;
            do {
              const page = await history.page(merchantId, consent.id, pageSize, after);
              changes.push(...page.changes);
              after = page.nextAfterId;
            } while (after !== undefined);

            const distinct = held.filter((status, i) => i === 0 || status !== held[i - 1]);
            expect(changes.map((c) => c.to)).toEqual(distinct);
            changes.forEach((change, i) => expect(change.from).toBe(i === 0 ? null : changes[i - 1].to));
            const times = changes.map((c) => Date.parse(c.changedAt));
            expect(times).toEqual([...times].sort((a, b) => a - b));
            // Another merchant reads none of it.
            const theirs = await history.page(
              tenantOfRecord({ merchantId: other.merchant.merchant.id }),
              consent.id,
              10,
            );
            expect(theirs.changes).toEqual([]);
          },
        ),
        25,
      );
    },
    propertyTimeout(120_000),
  );

  it(
    'property: statuses written at once by several connections still chain, ending at the consent’s own',
    async () => {
      const { prisma, db, history, merchantId, ownerRow, statuses } = writers();
      await assertProperty(
        fc.asyncProperty(fc.array(statuses, { minLength: 2, maxLength: 8 }), async (writes) => {
          const consent = await createConsentRow(
            prisma,
            ownerRow,
            'sandbox-redirect',
            ConsentStatus.AwaitingAuthorisation,
          );
          // Each on a connection of its own, all in flight together: the row lock orders them.
          await Promise.all(
            writes.map((status) =>
              db.pool.query('UPDATE consents SET status = $2 WHERE id = $1', [consent.id, status]),
            ),
          );
          const { changes } = await history.page(merchantId, consent.id, 100);
          const { rows } = await db.pool.query<{ status: string }>(
            'SELECT status FROM consents WHERE id = $1',
            [consent.id],
          );
          expect(changes[0]).toMatchObject({ from: null, to: ConsentStatus.AwaitingAuthorisation });
          changes.forEach((change, i) => {
            if (i > 0) expect(change.from).toBe(changes[i - 1].to);
            expect(change.to).not.toBe(change.from);
          });
          expect(changes.at(-1)!.to).toBe(rows[0].status);
          expect(changes.length).toBeLessThanOrEqual(writes.length + 1);
        }),
        25,
      );
    },
    propertyTimeout(120_000),
  );
});
