import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DatabasePool, PrismaService } from '#libs/database';
import { ConsentExpiryScanService } from '#libs/domain/consents';
import { UserRepository } from '#libs/domain/users';
import {
  assertProperty,
  type ConsentRowsSpec,
  createConsentRows,
  createUser,
  deleteMerchant,
  onboard,
  propertyTimeout,
  useStack,
} from '../kit/index.js';

const DAY = 86_400_000;

/**
 * The expiry scan pages through consents in expiry order, 500 at a time, from where the last batch
 * stopped. Whatever the consents (any number, past one batch and several, many sharing one expiry so that
 * a batch ends inside a run of equal expiries, of every status and kind, some warned already), one scan,
 * run by two processes at once and then again:
 * - every usable data consent past its expiry is EXPIRED, with one consent.expired;
 * - every authorised data consent expiring within the week and not yet warned is warned, with one
 *   consent.expiring;
 * - no other consent changes and no other event is recorded.
 * The consents are of the embedded flow, which has no bank page to re-authorise on: the scan's own reads
 * and writes are the subject, not the upstream's answers.
 */

/** Where an expiry falls against the scan's `now` and its week: exactly on each edge, and either side. */
const DUE_OFFSETS = [-3 * DAY, -1, 0] as const;
const WEEK_OFFSETS = [1, 3 * DAY, 7 * DAY] as const;
const LATER_OFFSETS = [7 * DAY + 1, 10 * DAY, null] as const;

// Weighted towards what the scan acts on, in groups big enough that the consents it pages through run past
// a batch (500) and end a batch inside a run of equal expiries.
const group = fc.record({
  count: fc.oneof(
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }) },
    { weight: 2, arbitrary: fc.integer({ min: 300, max: 700 }) },
  ),
  status: fc.oneof(
    { weight: 4, arbitrary: fc.constant('AUTHORIZED') },
    { weight: 2, arbitrary: fc.constant('AWAITING_RE_AUTHORIZATION') },
    { weight: 1, arbitrary: fc.constantFrom('AWAITING_AUTHORIZATION', 'EXPIRED', 'REVOKED') },
  ),
  kind: fc.constantFrom<'ACCOUNT' | 'VRP_SWEEPING'>('ACCOUNT', 'ACCOUNT', 'ACCOUNT', 'VRP_SWEEPING'),
  offset: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...WEEK_OFFSETS) },
    { weight: 2, arbitrary: fc.constantFrom(...DUE_OFFSETS) },
    { weight: 1, arbitrary: fc.constantFrom(...LATER_OFFSETS) },
  ),
  warned: fc.boolean(),
});
type Group = typeof group extends fc.Arbitrary<infer G> ? G : never;

const usable = (g: Group) =>
  g.kind === 'ACCOUNT' && (g.status === 'AUTHORIZED' || g.status === 'AWAITING_RE_AUTHORIZATION');
const expires = (g: Group) => usable(g) && g.offset !== null && g.offset <= 0;
const warns = (g: Group) =>
  g.kind === 'ACCOUNT' &&
  g.status === 'AUTHORIZED' &&
  !g.warned &&
  g.offset !== null &&
  g.offset > 0 &&
  g.offset <= 7 * DAY;

describe('property: the consent expiry scan acts on every consent due, once, and on no other', () => {
  const stack = useStack({ ownDatabase: 'expiry-scan-props' });

  it(
    'any consents, past several batches and tied on their expiry: expired and warned exactly as due',
    async () => {
      const prisma = stack.api.app.get(PrismaService);
      const db = stack.api.app.get(DatabasePool);
      const scan = stack.api.app.get(ConsentExpiryScanService);
      await assertProperty(
        fc.asyncProperty(fc.array(group, { minLength: 1, maxLength: 6 }), async (groups) => {
          const tenant = await onboard(stack);
          const merchantId = tenant.merchant.merchant.id;
          try {
            const user = await createUser(stack.api.app.get(UserRepository), merchantId);
            // Whole milliseconds, as Postgres keeps them: an expiry exactly at `now` is exactly at it.
            const now = new Date(Math.floor(Date.now() / 1000) * 1000);
            const made = await Promise.all(
              groups.map((g) => {
                const spec: ConsentRowsSpec = {
                  count: g.count,
                  status: g.status,
                  kind: g.kind,
                  expiresAt: g.offset === null ? null : new Date(now.getTime() + g.offset),
                  expiringNotifiedAt: g.warned ? new Date(now.getTime() - DAY) : null,
                };
                return createConsentRows(prisma, { id: user.id, merchantId }, spec);
              }),
            );
            const before = await statusesOf(db, merchantId);

            await Promise.all([scan.scanExpiry(now), scan.scanExpiry(now)]);
            await scan.scanExpiry(now);

            const after = await statusesOf(db, merchantId);
            const events = await consentEventsOf(db, merchantId);
            const expected = new Map<string, string>();
            groups.forEach((g, i) => {
              for (const id of made[i]) {
                if (expires(g)) expected.set(id, 'consent.expired');
                if (warns(g)) expected.set(id, 'consent.expiring');
              }
            });
            // One event per consent due, of the right type, and none for any other.
            expect(events.length).toBe(expected.size);
            expect(new Map(events.map((e) => [e.consentId, e.type]))).toEqual(expected);
            for (const [id, status] of before) {
              expect(after.get(id)).toBe(expected.get(id) === 'consent.expired' ? 'EXPIRED' : status);
            }
          } finally {
            await deleteMerchant(db, merchantId);
          }
        }),
        4,
      );
    },
    propertyTimeout(240_000),
  );
});

async function statusesOf(db: DatabasePool, merchantId: string): Promise<Map<string, string>> {
  const rows = await db.rows<{ id: string; status: string }>({
    text: `SELECT id, status FROM consents WHERE merchant_id = $1`,
    values: [merchantId],
  });
  return new Map(rows.map((r) => [r.id, r.status]));
}

async function consentEventsOf(db: DatabasePool, merchantId: string) {
  return db.rows<{ consentId: string; type: string }>({
    text: `SELECT data->>'consentId' AS "consentId", type::text AS type FROM merchant_events
      WHERE merchant_id = $1 AND type::text LIKE 'consent.%'`,
    values: [merchantId],
  });
}
