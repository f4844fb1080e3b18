import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tenantNamedByOperator } from '#libs/context';
import { DatabasePool, PrismaService } from '#libs/database';
import { AccountSyncStateRepository, UnattendedReadsRepository } from '#libs/domain/accounts';
import { InstitutionRepository } from '#libs/domain/institutions';
import { UserRepository } from '#libs/domain/users';
import {
  assertProperty,
  createConsentRow,
  createDueAccounts,
  createUser,
  deleteMerchant,
  onboard,
  propertyTimeout,
  uniqueName,
  useStack,
} from '../kit/index.js';

const DAY = 86_400_000;
const MINUTE = 60_000;
/** A day long past, so that the days the schedule runs through are the property's alone. */
const FIRST_DAY = Date.parse('2026-03-02T00:00:00Z');
const DAYS = 3;

/**
 * Days of an account's schedule run through the statements the worker runs (with their time given, not
 * read from the clock): a scheduled sync takes a read at its next_sync_at, fails (the read given back, as
 * after a bank's error answer) or succeeds, and plans the next; manual syncs and live reads without the
 * user take reads at any time. Whatever the bank's allowance, the interval, the failures and the manual
 * reads:
 * - no UTC day has more reads than the allowance;
 * - the schedule spreads them: a scheduled sync that is the day's k-th read (k from 0) comes no sooner than
 *   k/n of the way through the day, so a failure's retries or a manual read never spend the day at once;
 * - the schedule never stalls: every whole day without manual reads has at least one scheduled read.
 */
const scenario = fc.record({
  perDay: fc.integer({ min: 1, max: 6 }),
  intervalMinutes: fc.constantFrom(30, 60, 240, 360, 720),
  /** Whether each scheduled attempt fails, in turn (cycled). */
  failures: fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
  /** Manual syncs and live reads, at minutes of the days. */
  manual: fc.array(fc.integer({ min: 0, max: DAYS * 1440 - 1 }), { maxLength: 10 }),
  firstDueMinute: fc.integer({ min: 0, max: 1439 }),
});

describe('property: the schedule keeps within the bank’s daily allowance and spreads it', () => {
  const stack = useStack({ ownDatabase: 'unattended-reads-props' });

  it(
    'any allowance, interval, failures and manual reads: at most the allowance a day, spread over it',
    async () => {
      const prisma = stack.api.app.get(PrismaService);
      const db = stack.api.app.get(DatabasePool);
      const reads = stack.api.app.get(UnattendedReadsRepository);
      const syncState = stack.api.app.get(AccountSyncStateRepository);
      const institutions = stack.api.app.get(InstitutionRepository);
      await assertProperty(
        fc.asyncProperty(scenario, async (s) => {
          const tenant = await onboard(stack);
          const merchantId = tenantNamedByOperator({ kind: 'operator' }, tenant.merchant.merchant.id);
          const institutionId = uniqueName('prop-bank');
          try {
            await prisma.institution.create({
              data: { id: institutionId, name: institutionId, raw: {}, refreshedAt: new Date() },
            });
            expect(await institutions.setUnattendedReadsPerDay(institutionId, s.perDay)).toBe(true);
            const user = await createUser(stack.api.app.get(UserRepository), merchantId);
            const consent = await createConsentRow(prisma, { id: user.id, merchantId }, institutionId);
            const start = new Date(FIRST_DAY + s.firstDueMinute * MINUTE);
            const [accountId] = await createDueAccounts(
              prisma,
              { id: consent.id, merchantId, userId: user.id, institutionId },
              1,
              start,
            );
            const nextSyncAt = async () =>
              (
                await db.rows<{ at: Date }>({
                  text: 'SELECT next_sync_at AS at FROM accounts WHERE id = $1',
                  values: [accountId],
                })
              )[0].at;
            const taken: { at: number; scheduled: boolean }[] = [];
            const manual = [...s.manual].sort((a, b) => a - b).map((m) => FIRST_DAY + m * MINUTE);
            const end = FIRST_DAY + DAYS * DAY;
            let attempt = 0;
            for (;;) {
              const due = (await nextSyncAt()).getTime();
              const at = Math.min(due, manual[0] ?? Infinity);
              if (at >= end) break;
              const scheduled = at === due && at !== manual[0];
              if (!scheduled) manual.shift();
              const day = await reads.take(merchantId, accountId, new Date(at));
              if (day === null) {
                // Spent: a manual read is refused; a scheduled run waits for the next day.
                if (scheduled) {
                  await syncState.waitForAllowance(
                    merchantId,
                    accountId,
                    new Date(Math.floor(at / DAY) * DAY + DAY),
                  );
                }
                continue;
              }
              if (!scheduled) {
                taken.push({ at, scheduled });
                await syncState.deferToAllowance(merchantId, accountId, new Date(at));
                continue;
              }
              const fails = s.failures[attempt % s.failures.length];
              attempt += 1;
              await db.transaction(async (client) => {
                if (fails) {
                  await reads.giveBack(merchantId, accountId, day);
                  await syncState.markSyncFailed(merchantId, client, accountId, {
                    error: 'the bank failed',
                    at: new Date(at),
                    retry: { minSeconds: 300, maxSeconds: s.intervalMinutes * 60 },
                    jitter: 1,
                  });
                } else {
                  taken.push({ at, scheduled });
                  await syncState.markSyncSucceeded(merchantId, client, accountId, {
                    at: new Date(at),
                    nextSyncAt: new Date(at + s.intervalMinutes * MINUTE),
                  });
                }
              });
            }

            const byDay = new Map<number, number[]>();
            for (const read of taken) {
              const dayStart = Math.floor(read.at / DAY) * DAY;
              const k = byDay.get(dayStart)?.length ?? 0;
              if (read.scheduled) expect(read.at).toBeGreaterThanOrEqual(dayStart + (k * DAY) / s.perDay);
              byDay.set(dayStart, [...(byDay.get(dayStart) ?? []), read.at]);
            }
            for (const [, day] of byDay) expect(day.length).toBeLessThanOrEqual(s.perDay);
            // Whole days after the first due one, with no manual read: the schedule read at least once.
            for (let d = Math.floor(start.getTime() / DAY) + 1; d < FIRST_DAY / DAY + DAYS; d += 1) {
              if (s.manual.some((m) => Math.floor((FIRST_DAY + m * MINUTE) / DAY) === d)) continue;
              if (s.failures.every(Boolean)) continue;
              expect(byDay.get(d * DAY)?.length ?? 0).toBeGreaterThanOrEqual(1);
            }
          } finally {
            await deleteMerchant(db, merchantId);
            await prisma.institution.delete({ where: { id: institutionId } });
          }
        }),
        12,
      );
    },
    propertyTimeout(180_000),
  );
});
