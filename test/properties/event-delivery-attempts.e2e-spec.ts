import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { tenantOf } from '#libs/context';
import { PrismaService } from '#libs/database';
import { EventDeliveryRepository, EventDeliveryService } from '#libs/domain/events';
import {
  assertProperty,
  dataOf,
  EventReceiver,
  merchantCallerOf,
  propertyTimeout,
  useReceiver,
  useStack,
  useTenant,
} from '../kit/index.js';

/**
 * Issue 43 as an invariant: whatever a delivery meets (answers of any status, no answer at all, its
 * endpoint disabled, a duplicated job racing an attempt, a manual "send again" after any of them), its
 * attempt log holds exactly the attempts its count says, numbered 1..n as counted, the newest being
 * what the last counted attempt met.
 */

type Step =
  { kind: 'answer'; status: number; duplicated: boolean } | { kind: 'unreachable' } | { kind: 'disabled' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      status: fc.constantFrom(200, 204, 302, 400, 500, 503),
      duplicated: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'unreachable' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'disabled' as const }) },
);

describe('property: a delivery’s attempt log is exactly its counted attempts', () => {
  // No worker: this test makes every attempt itself. Its own database, so no other file's worker
  // sweeps its deliveries either.
  const stack = useStack({ ownDatabase: 'attempt_props' });
  const tenant = useTenant(stack);
  let prisma: PrismaService;
  const receiver = useReceiver();
  let deadUrl: string;
  let endpointId: string;

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    const dead = await new EventReceiver().start();
    deadUrl = dead.url;
    await dead.stop();
    endpointId = dataOf<{ endpoint: { id: string } }>(
      await tenant.client.post('/v1/event-endpoints', { url: receiver.url }),
      201,
    ).endpoint.id;
  });

  it(
    'holds for any sequence of outcomes, duplicated jobs and manual retries',
    async () => {
      const service = stack.api.app.get(EventDeliveryService);
      const repository = stack.api.app.get(EventDeliveryRepository);
      const merchantId = tenant.merchant.merchant.id;
      // Past any retry delay: each call is an attempt made when due.
      const due = () => new Date(Date.now() + 3_600_000);

      await assertProperty(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
          const event = await prisma.merchantEvent.create({
            data: {
              merchantId,
              userId: tenant.userId,
              type: 'CONSENT_REVOKED',
              data: { steps: steps.length },
            },
          });
          const delivery = await prisma.eventDelivery.create({
            data: { merchantId, endpointId, eventId: event.id, nextAttemptAt: new Date() },
          });
          let expected = 0;
          let lastStatus: number | null = null;
          // The delivery's last error is the last attempt's, unless a disabled endpoint failed it since.
          let disabledSince = false;
          for (const s of steps) {
            if (s.kind === 'disabled') {
              // Nothing is sent: failed for the merchant to send again, and no attempt counted.
              await prisma.eventEndpoint.update({
                where: { id: endpointId },
                data: { disabledAt: new Date() },
              });
              await service.attempt(delivery.id, due());
              await prisma.eventEndpoint.update({ where: { id: endpointId }, data: { disabledAt: null } });
              disabledSince = true;
            } else if (s.kind === 'unreachable') {
              await prisma.eventEndpoint.update({ where: { id: endpointId }, data: { url: deadUrl } });
              await service.attempt(delivery.id, due());
              await prisma.eventEndpoint.update({ where: { id: endpointId }, data: { url: receiver.url } });
              expected += 1;
              lastStatus = null;
              disabledSince = false;
            } else {
              receiver.otherwise = s.status;
              const before = receiver.requests.length;
              if (s.duplicated) {
                // Both in flight before either answers: both read the same count, one records.
                receiver.together = 2;
                await Promise.all([service.attempt(delivery.id, due()), service.attempt(delivery.id, due())]);
                expect(receiver.requests.length - before).toBe(2);
              } else {
                await service.attempt(delivery.id, due());
              }
              expected += 1;
              lastStatus = s.status;
              disabledSince = false;
            }

            const [row, log] = await Promise.all([
              prisma.eventDelivery.findUniqueOrThrow({ where: { id: delivery.id } }),
              prisma.eventDeliveryAttempt.findMany({
                where: { deliveryId: delivery.id },
                orderBy: { attempt: 'desc' },
              }),
            ]);
            expect(row.attempts).toBe(expected);
            expect(log.map((a) => a.attempt)).toEqual(
              Array.from({ length: expected }, (_, i) => expected - i),
            );
            if (expected > 0) {
              expect(log[0].responseStatus).toBe(lastStatus);
              expect(row.lastResponseStatus).toBe(lastStatus);
              expect(row.lastError).toBe(disabledSince ? 'endpoint disabled' : log[0].error);
            }
            // Delivered or failed: the merchant sends it again, and the count goes on.
            if (row.status !== 'PENDING') {
              await repository.requeue(
                tenantOf(merchantCallerOf(tenant)),
                endpointId,
                delivery.id,
                new Date(),
              );
            }
          }
        }),
        15,
      );
    },
    propertyTimeout(120_000),
  );
});
