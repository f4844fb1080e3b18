import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { PaymentStatusPoller } from '#libs/domain/payments';
import {
  assertProperty,
  atBank,
  dataOf,
  eventually,
  paymentBodies,
  propertyTimeout,
  uniqueName,
  useBankFaults,
  useStack,
  useTenant,
} from '../kit/index.js';
import { scrape, valueOf } from '../kit/metrics-kit.js';

/** What the bank does with one send: loses it (maybe made, answer lost), fails (5xx), or refuses it. */
type Lost = 'drop' | 503;
type Refusal = 400 | 409;

/**
 * A payment is FAILED only when no send of it can have reached the bank (docs/payments.md). Whatever the
 * bank does with the sends (some lost, some answered 5xx, by the client's own retries inside one
 * submission or by the status poll's later ones) and then a refusal or an acceptance:
 * - a refusal after any send that may have landed parks the payment for a person, SUBMITTING, no event;
 * - a refusal of the very first send fails it;
 * - an acceptance submits it (the bank's id is kept), never FAILED.
 * Four lost sends at most in a row, so the institution's breaker (five) never opens mid-case.
 */
describe('payment sends: FAILED only when nothing can have reached the bank', () => {
  const stack = useStack({ ownDatabase: 'sends' });
  let prisma: PrismaService;
  let poller: PaymentStatusPoller;
  const tenant = useTenant(stack);
  const sandbox = useBankFaults(stack);

  beforeAll(() => {
    prisma = stack.api.app.get(PrismaService);
    poller = stack.api.app.get(PaymentStatusPoller);
  });

  const where = (id: string) => ({ where: { id } });
  /** Payments this api failed because the bank refused their first send (the counter is the process's). */
  const refusedCount = async () =>
    valueOf(await scrape(`${stack.api.url}/metrics`), 'bff_payments_final_total', {
      status: 'FAILED',
      kind: 'SINGLE',
      reason: 'refused_caller',
    }) ?? 0;

  it(
    'never ends FAILED when a send may have landed, whatever the lost sends, refusals and retries',
    async () => {
      await assertProperty(
        fc.asyncProperty(
          fc.array(fc.constantFrom<Lost>('drop', 503), { maxLength: 4 }),
          fc.option(fc.constantFrom<Refusal>(400, 409), { nil: undefined }),
          async (lost, refusal) => {
            await sandbox.admin('DELETE', '/faults');
            const created = dataOf(
              await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
                headers: { 'idempotency-key': uniqueName('sends') },
              }),
              201,
            );
            // One rule per send, in order: the sandbox takes the first rule with hits left.
            for (const answer of [...lost, ...(refusal ? [refusal] : [])]) {
              const effect = answer === 'drop' ? { drop: true } : { status: answer };
              await sandbox.admin('POST', '/faults', {
                method: 'POST',
                path: '/payments',
                ...effect,
                count: 1,
              });
            }
            const refusedBefore = await refusedCount();
            await atBank(stack, created.authorisationUrl);
            const row = await eventually(`payment ${created.id} decided`, async () => {
              await poller.pollDue();
              const now = await prisma.payment.findUniqueOrThrow(where(created.id));
              const parked = now.status === 'SUBMITTING' && now.nextStatusCheckAt === null;
              return parked || now.upstreamPaymentId !== null || now.status === 'FAILED' ? now : undefined;
            });
            const events = await prisma.merchantEvent.count({
              where: { data: { path: ['paymentId'], equals: created.id }, type: 'PAYMENT_FAILED' },
            });
            if (refusal === undefined) {
              expect(row.upstreamPaymentId).not.toBeNull();
              expect(row.status).not.toBe('FAILED');
            } else if (lost.length > 0) {
              expect(row).toMatchObject({ status: 'SUBMITTING', nextStatusCheckAt: null });
              expect(events).toBe(0);
            } else {
              expect(row.status).toBe('FAILED');
              expect(events).toBe(1);
            }
            // Counted by why, once: only a first send refused.
            expect(await refusedCount()).toBe(
              refusedBefore + (refusal !== undefined && lost.length === 0 ? 1 : 0),
            );
          },
        ),
        12,
      );
    },
    propertyTimeout(120_000),
  );
});
