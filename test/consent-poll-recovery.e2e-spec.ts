import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { beforeAll, describe, expect, it } from 'vitest';
import { UserRepository } from '#libs/domain/users';
import { JobProducerService, QueueName } from '#libs/queue';
import {
  type ApiClient,
  type CreatedMerchant,
  createMerchant,
  createUser,
  dataOf,
  eventually,
  useStack,
  WAIT,
} from './kit/index.js';

// Issue 26: an embedded consent awaiting the bank's outcome moves on only through its poll job. When Redis
// loses that job, the consent reconciliation (a scheduled job, run at once when its scheduler is restored)
// must start the poll again, or the consent stays AWAITING_AUTHORIZATION for good.

// Its own database: the reconciliation acts on every consent there is.
const stack = useStack({ ownDatabase: 'consent_poll_recovery' });
let owner: CreatedMerchant;
let userId: string;
let client: ApiClient;

beforeAll(async () => {
  owner = await createMerchant(stack.api);
  userId = (await createUser(stack.api.app.get(UserRepository), owner.merchant.id)).id;
  client = stack.anonymous.as(owner.apiKey.key);
}, 60_000);

const statusOf = async (consentId: string) =>
  dataOf<{ status: string }>(await client.get(`/v1/consents/${consentId}`)).status;

describe('an embedded consent whose poll job Redis lost', () => {
  it('is polled again by the reconciliation and reaches AUTHORIZED', async () => {
    const started = dataOf<{ id: string }>(
      await client.post(`/v1/users/${userId}/consents/embedded`, {
        institutionId: 'sandbox-embedded',
        credentials: { id: 'psu-1', password: 'secret' },
      }),
      201,
    );
    dataOf(await client.post(`/v1/consents/${started.id}/sca-method`, { scaMethodId: 'sbx-sms-otp' }));
    dataOf(await client.post(`/v1/consents/${started.id}/sca-code`, { code: '123456' }), 202);

    // No worker runs yet: the poll job waits in Redis. Redis then loses it.
    const queue = stack.api.app.get<Queue>(getQueueToken(QueueName.Consents), { strict: false });
    const jobId = `consents.poll-embedded.${started.id}`;
    expect(await queue.getJob(jobId)).toBeDefined();
    await queue.remove(jobId);
    expect(await queue.getJob(jobId)).toBeUndefined();

    const worker = await stack.startWorker();
    try {
      await stack.api.app.get(JobProducerService).enqueue('consents.reconcile', {});
      await eventually(
        'the consent authorised',
        async () => ((await statusOf(started.id)) === 'AUTHORIZED' ? true : undefined),
        WAIT.step,
      );
    } finally {
      await worker.close();
    }
  }, 90_000);
});
