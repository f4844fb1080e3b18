import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PrismaService } from '#libs/database';
import { SERVED_DATA_FEATURES } from '#libs/domain/consents';
import { QueueName } from '#libs/queue';
import {
  ApiClient,
  type CreatedMerchant,
  dataOf,
  decideAtBank,
  type ErrorBody,
  eventually,
  onboard,
  SandboxHttp,
  type Stack,
  uniqueQueuePrefix,
  useStack,
  WAIT,
} from './kit/index.js';

const REDIRECT = 'https://app.merchant.example/banks/done';

describe('api: consent scope, re-authorisation and expiry (issue 8 defects 1, 2, 8, 9)', () => {
  // A queue of its own: a test starts a worker, which takes every job on its prefix.
  const stack = useStack({ overrides: { QUEUE_PREFIX: uniqueQueuePrefix('consent-scope') } });
  let admin: SandboxHttp;
  let prisma: PrismaService;
  let owner: CreatedMerchant;
  let userId: string;

  /** The owner's client on `base`, the stack's api unless a test started another. */
  const ownerClient = (base = stack.api.url) => new ApiClient(base, owner.apiKey.key);

  /** Acts as the browser: approves at the sandbox bank and follows the redirect to our callback. */
  async function approveAtBank(authorisationUrl: string): Promise<URL> {
    const back = await decideAtBank(
      { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
      authorisationUrl,
    );
    expect(back.status).toBe(302);
    return back.location;
  }

  async function connect(body: Record<string, unknown> = {}): Promise<string> {
    const created = dataOf<{ id: string; authorisationUrl: string }>(
      await ownerClient().post(`/v1/users/${userId}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: REDIRECT,
        ...body,
      }),
      201,
    );
    expect((await approveAtBank(created.authorisationUrl)).searchParams.get('status')).toBe('AUTHORIZED');
    return created.id;
  }

  const accountsOf = (consentId: string) =>
    prisma.account.findMany({ where: { consentId }, orderBy: { id: 'asc' } });

  beforeAll(async () => {
    admin = new SandboxHttp(stack.sandbox.url, stack.api.config);
    prisma = stack.api.app.get(PrismaService);
    ({ merchant: owner, userId } = await onboard(stack));
  });

  it('answers 403 FORBIDDEN for a feature outside the consent’s scope and leaves the consent usable', async () => {
    const consentId = await connect({ scopes: ['ACCOUNTS', 'ACCOUNT_BALANCES', 'ACCOUNT_TRANSACTIONS'] });
    const [account] = await accountsOf(consentId);

    for (const path of ['statements', 'beneficiaries']) {
      const refused = await ownerClient().get(`/v1/accounts/${account.id}/${path}`);
      expect(refused.status).toBe(403);
      expect((refused.body as ErrorBody).error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    }

    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    expect(row).toMatchObject({ status: 'AUTHORIZED', lastErrorCode: null });
    expect((await accountsOf(consentId)).map((a) => a.syncStatus)).not.toContain('STOPPED');
    // Calls inside the scope still work.
    expect((await ownerClient().get(`/v1/accounts/${account.id}/transactions/live`)).status).toBe(200);
    const view = dataOf<{ status: string }>(await ownerClient().get(`/v1/consents/${consentId}`), 200);
    expect(view.status).toBe('AUTHORIZED');
  });

  it('never syncs a consent without transactions in its scopes: the account stops saying why', async () => {
    const consentId = await connect({ scopes: ['ACCOUNTS', 'ACCOUNT_BALANCES'] });
    const [account] = await accountsOf(consentId);
    // Started once the account is this consent's: a run begun under the earlier consent would finish.
    const worker = await stack.startWorker();
    onTestFinished(() => worker.close());
    type Sync = { status: string; lastError: string | null; nextSyncAt: string | null };
    const sync = await eventually(
      'the first sync ended',
      async () => {
        const view = dataOf<{ sync: Sync }>(await ownerClient().get(`/v1/accounts/${account.id}`), 200);
        return view.sync.status === 'stopped' ? view.sync : undefined;
      },
      WAIT.work,
    );
    expect(sync.nextSyncAt).toBeNull();
    expect(sync.lastError).toContain('does not cover transactions');
    expect(sync.lastError).toContain('ACCOUNT_TRANSACTIONS');
    const runs = dataOf<{ status: string; error: { code: string }; progress: { pages: number } }[]>(
      await ownerClient().get(`/v1/accounts/${account.id}/syncs`),
      200,
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'failed',
      error: { code: 'CONSENT_SCOPE' },
      progress: { pages: 0 },
    });
    const again = await ownerClient().post(`/v1/accounts/${account.id}/sync`);
    expect(again.status).toBe(409);
    expect((again.body as ErrorBody).error).toMatchObject({ code: 'CONFLICT' });
    expect((again.body as ErrorBody).error.message).toContain('does not cover transactions');
    // Nothing else stops: the consent stays authorised.
    const consent = dataOf<{ status: string }>(await ownerClient().get(`/v1/consents/${consentId}`), 200);
    expect(consent.status).toBe('AUTHORIZED');
  });

  it('asks every account authorisation for its scopes and an expiry, and refuses what the bank would before asking it', async () => {
    const DAY_MS = 86_400_000;
    const upstreamOf = async (consentId: string) => {
      const { upstreamConsentId } = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
      return (
        await admin.call<{ data: { featureScope: string[]; expiresAt: string } }>(
          'GET',
          `/consents/${upstreamConsentId}`,
        )
      ).body.data;
    };
    const sandboxRedirect = (
      await admin.call<{ features: string[] }>('GET', '/institutions/sandbox-redirect')
    ).body.features;
    const served = SERVED_DATA_FEATURES.filter((f) => sandboxRedirect.includes(f));
    // The institution offers more data than this service reads: only what is read is asked for.
    expect(sandboxRedirect).toContain('IDENTITY');
    expect(served).not.toContain('IDENTITY');

    // Nothing named: what the service reads of what the bank offers, for the longest a bank grants.
    const before = Date.now();
    const plain = dataOf<{ id: string; expiresAt: string }>(
      await ownerClient().post(`/v1/users/${userId}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: REDIRECT,
      }),
      201,
    );
    const asked = await upstreamOf(plain.id);
    expect([...asked.featureScope].sort()).toEqual([...served].sort());
    expect(Date.parse(asked.expiresAt)).toBeGreaterThanOrEqual(before + 90 * DAY_MS - 1_000);
    expect(Date.parse(asked.expiresAt)).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS);
    expect(plain.expiresAt).toBe(new Date(asked.expiresAt).toISOString());

    // A longer expiry is capped at 90 days; the merchant's scopes are sent as they are.
    const far = dataOf<{ id: string; expiresAt: string }>(
      await ownerClient().post(`/v1/users/${userId}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: REDIRECT,
        scopes: ['ACCOUNTS', 'ACCOUNT_TRANSACTIONS'],
        expiresAt: new Date(Date.now() + 200 * DAY_MS).toISOString(),
      }),
      201,
    );
    expect((await upstreamOf(far.id)).featureScope).toEqual(['ACCOUNTS', 'ACCOUNT_TRANSACTIONS']);
    expect(Date.parse(far.expiresAt)).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS);

    // The embedded flow asks the same.
    const embedded = dataOf<{ id: string }>(
      await ownerClient().post(`/v1/users/${userId}/consents/embedded`, {
        institutionId: 'sandbox-embedded',
        credentials: { id: 'psu-1', password: 'secret' },
      }),
      201,
    );
    const embeddedAsked = await upstreamOf(embedded.id);
    expect(embeddedAsked.featureScope).toEqual(expect.arrayContaining(['ACCOUNTS', 'ACCOUNT_TRANSACTIONS']));
    expect(Date.parse(embeddedAsked.expiresAt)).toBeGreaterThan(Date.now() + 89 * DAY_MS);

    // What the bank would refuse is refused here, naming the field.
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [
        { scopes: ['ACCOUNTS', 'INITIATE_DOMESTIC_SINGLE_PAYMENT'] },
        'scopes',
        /INITIATE_DOMESTIC_SINGLE_PAYMENT not offered/,
      ],
      [{ institutionId: 'no-such-bank' }, 'institutionId', /not an institution the upstream offers/],
      [{ expiresAt: new Date(Date.now() - DAY_MS).toISOString() }, 'expiresAt', /in the future/],
      [
        { transactionsFrom: '2026-02-01T00:00:00Z', transactionsTo: '2026-01-01T00:00:00Z' },
        'transactionsTo',
        /before/,
      ],
    ];
    for (const [change, field, issue] of refusals) {
      const refused = await ownerClient().post(`/v1/users/${userId}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: REDIRECT,
        ...change,
      });
      const body = refused.body as ErrorBody;
      expect([refused.status, body.error.code], JSON.stringify(change)).toEqual([400, 'VALIDATION_FAILED']);
      expect(body.error.details, JSON.stringify(change)).toEqual([
        { field, issue: expect.stringMatching(issue) },
      ]);
    }
  });

  it('documents the 403 on the pass-through routes and lower-case sync statuses in the OpenAPI document', async () => {
    const doc = (await stack.anonymous.get('/docs-json')).body;
    for (const path of ['/v1/accounts/{accountId}/statements', '/v1/accounts/{accountId}/beneficiaries']) {
      expect(doc.paths[path].get.responses['403'].description).toMatch(/^FORBIDDEN/);
    }
    expect(doc.components.schemas.SyncSummaryOutput.properties.status.enum).toEqual([
      'pending',
      'syncing',
      'synced',
      'failed',
      'stopped',
    ]);
  });

  it('writes every sync status in lower case: the consent summary and each account alike', async () => {
    const consentId = await connect();
    const consent = dataOf<{ sync: { status: string } }>(
      await ownerClient().get(`/v1/consents/${consentId}`),
      200,
    );
    expect(consent.sync.status).toBe('pending');
    const [stored] = await accountsOf(consentId);
    const one = dataOf<{ sync: { status: string } }>(
      await ownerClient().get(`/v1/accounts/${stored.id}`),
      200,
    );
    expect(one.sync.status).toBe('pending');
    const list = dataOf<{ sync: { status: string } }[]>(
      await ownerClient().get(`/v1/users/${userId}/accounts`),
      200,
    );
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((a) => a.sync.status === a.sync.status.toLowerCase())).toBe(true);
  });

  it('after the bank expired a consent, refuses to re-authorise it and restarts the same accounts’ sync on a new consent', async () => {
    const consentId = await connect();
    const [account] = await accountsOf(consentId);
    const { upstreamConsentId } = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    expect((await admin.admin('POST', `/consents/${upstreamConsentId}/expire`)).status).toBe(200);

    const expired = await ownerClient().get(`/v1/accounts/${account.id}/transactions/live`);
    expect((expired.body as ErrorBody).error.code).toBe('CONSENT_EXPIRED');
    expect((await prisma.consent.findUniqueOrThrow({ where: { id: consentId } })).status).toBe('EXPIRED');
    expect((await accountsOf(consentId)).every((a) => a.syncStatus === 'STOPPED')).toBe(true);

    // An ended consent is not renewed: the answer names the way back, a new consent for the same bank.
    const refused = await ownerClient().post(`/v1/consents/${consentId}/reauthorise`, {
      redirectUrl: REDIRECT,
    });
    expect(refused.status).toBe(409);
    const error = (refused.body as ErrorBody).error;
    expect(error.code).toBe('CONSENT_NOT_AUTHORISED');
    expect(error.message).toContain(`POST /v1/users/${userId}/consents`);
    const stopped = (await accountsOf(consentId)).map((a) => a.id);

    const before = Date.now();
    const again = await connect();
    // The same accounts, now the new consent's, due for a sync at once.
    const accounts = await accountsOf(again);
    expect(accounts.map((a) => a.id)).toEqual(expect.arrayContaining(stopped));
    for (const a of accounts) {
      expect(a.syncStatus).toBe('PENDING');
      expect(a.nextSyncAt!.getTime()).toBeLessThanOrEqual(Date.now());
      expect(a.nextSyncAt!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    }
    const view = dataOf<{ sync: { status: string } }>(await ownerClient().get(`/v1/consents/${again}`), 200);
    expect(view.sync.status).toBe('pending');
    expect((await ownerClient().get(`/v1/accounts/${account.id}/transactions/live`)).status).toBe(200);
  });

  describe('under upstream version 2.0-ALPHA (GET /consents omits expiresAt)', () => {
    const prefix = uniqueQueuePrefix('consents-v2');
    let apiV2: Stack['api'];
    let worker: Awaited<ReturnType<Stack['startWorker']>>;
    const v2 = { UPSTREAM_API_VERSION: '2.0-ALPHA', QUEUE_PREFIX: prefix };

    beforeAll(async () => {
      apiV2 = await stack.startApi(v2);
      worker = await stack.startWorker(v2);
    });
    afterAll(async () => {
      await worker?.app.get<Queue>(getQueueToken(QueueName.Consents)).obliterate({ force: true });
      await worker?.close();
      await apiV2?.close();
    });

    it('keeps an expiry for an embedded consent the worker polled to AUTHORIZED', async () => {
      const started = dataOf<{ id: string }>(
        await ownerClient(apiV2.url).post(`/v1/users/${userId}/consents/embedded`, {
          institutionId: 'sandbox-embedded',
          credentials: { id: 'psu-1', password: 'secret' },
        }),
        201,
      );
      dataOf(
        await ownerClient(apiV2.url).post(`/v1/consents/${started.id}/sca-method`, {
          scaMethodId: 'sbx-sms-otp',
        }),
        200,
      );
      dataOf(
        await ownerClient(apiV2.url).post(`/v1/consents/${started.id}/sca-code`, { code: '123456' }),
        202,
      );
      const statusOf = async () =>
        dataOf<{ status: string }>(await ownerClient(apiV2.url).get(`/v1/consents/${started.id}`), 200)
          .status;
      await eventually(
        'the consent authorised',
        async () => {
          expect(await statusOf()).toBe('AUTHORIZED');
          return true;
        },
        WAIT.work,
      );

      const row = await prisma.consent.findUniqueOrThrow({ where: { id: started.id } });
      expect(row.expiresAt).not.toBeNull();
      // Version 1 of the same upstream still tells the truth: ours must agree with it.
      const truth = await admin.call<{ data: { expiresAt: string } }>(
        'GET',
        `/consents/${row.upstreamConsentId}`,
      );
      expect(Math.abs(row.expiresAt!.getTime() - Date.parse(truth.body.data.expiresAt))).toBeLessThan(60_000);
      const view = dataOf<{ expiresAt: string | null }>(
        await ownerClient(apiV2.url).get(`/v1/consents/${started.id}`),
        200,
      );
      expect(view.expiresAt).toBe(row.expiresAt!.toISOString());
    });

    it('keeps the expiry asked for on a redirect consent', async () => {
      const expiresAt = new Date(Date.now() + 10 * 86_400_000).toISOString();
      const created = dataOf<{ id: string; authorisationUrl: string }>(
        await ownerClient(apiV2.url).post(`/v1/users/${userId}/consents`, {
          institutionId: 'sandbox-redirect',
          redirectUrl: REDIRECT,
          expiresAt,
        }),
        201,
      );
      const back = await decideAtBank(
        { apiUrl: apiV2.url, sandboxUrl: stack.sandbox.url },
        created.authorisationUrl,
      );
      expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
      const row = await prisma.consent.findUniqueOrThrow({ where: { id: created.id } });
      expect(Math.abs(row.expiresAt!.getTime() - Date.parse(expiresAt))).toBeLessThan(60_000);
    });
  });
});
