import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, migrate, PrismaService } from '#libs/database';
import { PaymentStatusPoller } from '#libs/domain/payments';
import { JobProducerService } from '#libs/queue';
import {
  bankRedirect,
  dataOf,
  eventually,
  onboard,
  paymentBodies,
  SandboxHttp,
  type Stack,
  startStack,
  type Tenant,
  uniqueName,
  uniqueQueuePrefix,
  WAIT,
} from './kit/index.js';
import { type PrivatePostgres, startPrivatePostgres } from './kit/private-services.mjs';

// Issue 56, finding 6: an approval at the bank is never lost to a Postgres restart. The callback spends
// its single-use state first; when Postgres stops after that and before the answer is stored, the
// reload used to send the user back with AWAITING_AUTHORIZATION, unchanged for good. Now the reload
// finishes it from the bank, and so does the worker when nobody reloads.

let postgres: PrivatePostgres;
let stack: Stack;
let tenant: Tenant;
let sandbox: SandboxHttp;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  await migrate(postgres.url, defaultMigrationsDir());
  stack = await startStack({
    worker: true,
    overrides: { DATABASE_URL: postgres.url, QUEUE_PREFIX: uniqueQueuePrefix('callback-outage') },
  });
  tenant = await onboard(stack);
  sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await postgres?.destroy();
});

/**
 * A consent approved at the bank whose callback spent its state, then met Postgres stopped (restarted
 * at once): the bank's one-time token is held and failed while Postgres stops, so nothing is stored and
 * the failure cannot be written either. The browser got the outage page.
 */
/** A data consent for the tenant's user, waiting for the bank. */
async function dataConsent() {
  return dataOf<{ id: string; authorisationUrl: string }>(
    await tenant.client.post(`/v1/users/${tenant.userId}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://app.merchant.example/banks/done',
    }),
    201,
  );
}

async function approvalCaughtByRestart(created?: { id: string; authorisationUrl: string }) {
  created ??= await dataConsent();
  const callback = await bankRedirect(
    { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
    created.authorisationUrl,
  );
  const rule = await sandbox.admin<{ data: { id: string } }>('POST', '/faults', {
    method: 'POST',
    path: '/consent-one-time-token',
    status: 503,
    latencyMs: 1_500,
    count: 50,
  });
  expect(rule.status).toBe(201);
  const during = fetch(callback, { redirect: 'manual' });
  await eventually('the exchange held at the bank', async () => {
    const rules = (await sandbox.admin<{ data: { id: string; hits: number }[] }>('GET', '/faults')).body.data;
    return (rules.find((r) => r.id === rule.body.data.id)?.hits ?? 0) > 0 || undefined;
  });
  await postgres.stop('fast');
  const page = await during;
  await page.arrayBuffer();
  expect(page.status).toBe(503);
  await sandbox.admin('DELETE', '/faults');
  await postgres.start();
  await eventually(
    'the api answers again',
    async () => ((await stack.anonymous.get('/health/ready')).status === 200 ? true : undefined),
    WAIT.step,
  );
  return { consentId: created.id, callback };
}

const statusOf = async (consentId: string) =>
  dataOf<{ status: string }>(await tenant.client.get(`/v1/consents/${consentId}`)).status;

describe('an approval at the bank caught by a Postgres restart', () => {
  it('is finished by the reload of the outage page', async () => {
    const { consentId, callback } = await approvalCaughtByRestart();
    expect(await statusOf(consentId)).toBe('AWAITING_AUTHORIZATION');
    const reloaded = await fetch(callback, { redirect: 'manual' });
    await reloaded.arrayBuffer();
    expect(reloaded.status).toBe(302);
    expect(new URL(reloaded.headers.get('location')!).searchParams.get('status')).toBe('AUTHORIZED');
    expect(await statusOf(consentId)).toBe('AUTHORIZED');
  }, 90_000);

  it('is finished by the worker when nobody reloads', async () => {
    const { consentId } = await approvalCaughtByRestart();
    expect(await statusOf(consentId)).toBe('AWAITING_AUTHORIZATION');
    // The callback scheduled its own look before spending its state; it waits out its delay. Run it now.
    const jobs = stack.api.app.get(JobProducerService);
    const job = await jobs.queueFor('consents.settle').getJob(`consents.settle.${consentId}.callback`);
    expect(await job?.getState()).toBe('delayed');
    await job!.promote();
    await eventually(
      'the consent authorised by the worker',
      async () => ((await statusOf(consentId)) === 'AUTHORIZED' ? true : undefined),
      WAIT.step,
    );
  }, 90_000);

  it('is finished by the worker for a payment too, which it makes once', async () => {
    const payment = dataOf<{ id: string; consentId: string; authorisationUrl: string }>(
      await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': uniqueName('pay') },
      }),
      201,
    );
    await approvalCaughtByRestart({ id: payment.consentId, authorisationUrl: payment.authorisationUrl });
    const jobs = stack.api.app.get(JobProducerService);
    const job = await jobs
      .queueFor('consents.settle')
      .getJob(`consents.settle.${payment.consentId}.callback`);
    await job!.promote();
    const paid = await eventually(
      'the payment made by the worker',
      async () => {
        const now = dataOf<{ status: string; upstreamPaymentId: string | null }>(
          await tenant.client.get(`/v1/payments/${payment.id}`),
        );
        return now.upstreamPaymentId ? now : undefined;
      },
      WAIT.step,
    );
    expect(['PENDING', 'COMPLETED']).toContain(paid.status);
    // Once: the bank holds one payment of this idempotency id, and the consent is spent.
    await stack.worker!.app.get(PaymentStatusPoller).pollDue();
    const row = await stack.api.app
      .get(PrismaService)
      .payment.findUniqueOrThrow({ where: { id: payment.id } });
    const upstream = await sandbox.admin<{ data: { paymentIdempotencyId: string } }>(
      'GET',
      `/payments/${paid.upstreamPaymentId}`,
    );
    expect(upstream.body.data.paymentIdempotencyId).toBe(row.paymentIdempotencyId);
    expect(await statusOf(payment.consentId)).toBe('CONSUMED');
  }, 90_000);
});
