import { expect } from 'vitest';
import { jobRequestId, runInContext } from '#libs/context';
import { DatabasePool, PrismaService } from '#libs/database';
import { ConsentTokenVault } from '#libs/domain/consents';
import { AccountSyncService, type SyncOutcome } from '#libs/domain/sync';
import { SyncRunRepository } from '#libs/domain/sync-runs';
import { UserRepository } from '#libs/domain/users';
import { eventually, WAIT } from '#libs/testing';
import type { ApiClient, ApiResponse } from './api-client.js';
import type { Stack, Tenant } from './api-kit.js';
import { connectBank } from './bank-consents.js';
import { createUser } from './factories.js';
import { SandboxHttp } from './sandbox-http.js';
import { USER_PRESENT } from './user-present.mjs';

export interface SyncedAccount {
  id: string;
  type: string;
  upstreamAccountId: string;
  sync: {
    status: string;
    lastSyncedAt: string | null;
    nextSyncAt?: string | null;
    lastError?: string | null;
    dailyLimitUntil?: string | null;
    unattendedReads: { perDay: number; used: number; remaining: number; resetsAt: string };
  };
}

/** The consent's accounts once every one of them has finished a sync (synced or failed). */
export async function accountsWhenSynced(
  client: ApiClient,
  userId: string,
  within: number = WAIT.work,
): Promise<SyncedAccount[]> {
  return eventually(
    'every account synced',
    async () => {
      const response = await client.get<{ data: SyncedAccount[] }>(`/v1/users/${userId}/accounts`);
      const accounts = response.body.data;
      return accounts.length > 0 && accounts.every((a) => a.sync.status === 'synced' && a.sync.lastSyncedAt)
        ? accounts
        : undefined;
    },
    within,
  );
}

/** A sync run once it ended. */
export async function runWhenEnded(client: ApiClient, syncId: string) {
  return eventually(`sync ${syncId} ended`, async () => {
    const response = await client.get<{
      data: { status: string; progress: Record<string, number> } & Record<string, any>;
    }>(`/v1/syncs/${syncId}`);
    expect(response.status).toBe(200);
    return ['succeeded', 'failed'].includes(response.body.data.status) ? response.body.data : undefined;
  });
}

/** What the sandbox bank does to an account's transactions calls, `count` times (its fault rules). */
export interface TransactionsFault {
  count: number;
  /** Answer with this status (the upstream's error shape), with `retryAfterSeconds` for a 429 or 503. */
  status?: number;
  retryAfterSeconds?: number;
  /** Answer this much later (or fail this much later). */
  latencyMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
}

/**
 * A sync of the account asked for while the sandbox bank answers its transactions with `status`
 * (`count` times; the fault is cleared after), or slowly, or not at all: the run as it ended. The
 * default, a 400 the sync does not retry, fails the run at once with the upstream's tracing id; a 5xx the
 * client retries past leaves the failed attempts in the call log only. `headers` go with the POST …/sync
 * (an x-request-id).
 */
export async function syncAtFailingBank(
  stack: Stack,
  tenant: Tenant,
  account: { id: string; upstreamAccountId: string },
  fault: TransactionsFault = { status: 400, count: 4 },
  headers: Record<string, string> = {},
) {
  const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
  const path = `/accounts/${account.upstreamAccountId}/transactions`;
  await sandbox.admin('POST', '/faults', { method: 'GET', path, ...fault });
  try {
    const requested = await tenant.client.post(`/v1/accounts/${account.id}/sync`, undefined, { headers });
    expect(requested.status).toBe(202);
    return await runWhenEnded(tenant.client, (requested.body as { data: { syncId: string } }).data.syncId);
  } finally {
    await sandbox.admin('DELETE', '/faults');
  }
}

/** Every stored transaction of an account, walked through the API's cursor (ids in walk order). */
export async function storedTransactions(
  client: ApiClient,
  accountId: string,
  query = 'limit=1000',
): Promise<{ id: string; status: string; amount: string; date: string }[]> {
  type Stored = { id: string; status: string; amount: string; date: string };
  const records: Stored[] = [];
  let path: string | undefined = `/v1/accounts/${accountId}/transactions?${query}`;
  while (path) {
    const response: ApiResponse<{ data: Stored[]; links?: { next?: string } }> = await client.get(path);
    expect(response.status).toBe(200);
    records.push(...response.body.data);
    path = response.body.links?.next;
  }
  return records;
}

/** The upstream's own set for an account, read from the sandbox with the consent's token. */
export async function upstreamTransactions(
  stack: Stack,
  consentId: string,
  upstreamAccountId: string,
): Promise<{ id: string; status: string; amount: number; date: string }[]> {
  const prisma = stack.api.app.get(PrismaService);
  const row = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
  const token = stack.api.app.get(ConsentTokenVault).open(row, row.id);
  if (!token) throw new Error(`consent ${consentId} holds no token`);
  const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
  const records: { id: string; status: string; amount: number; date: string }[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await sandbox.call<{ data: typeof records }>(
      'GET',
      `/accounts/${upstreamAccountId}/transactions?limit=1000&offset=${offset}`,
      // With the user's address: the test's look at the bank is not one of the account's daily reads.
      { consent: token, headers: USER_PRESENT },
    );
    expect(page.status).toBe(200);
    records.push(...page.body.data);
    if (page.body.data.length < 1000) return records;
  }
}

/** The upstream (sandbox) consent id behind a local consent. */
export async function upstreamConsentId(stack: Stack, consentId: string): Promise<string> {
  const prisma = stack.api.app.get(PrismaService);
  return (await prisma.consent.findUniqueOrThrow({ where: { id: consentId } })).upstreamConsentId;
}

/** The tenant's user and `more` new users, each with a bank connected: user id → local consent id. */
export async function connectedUsers(
  stack: Stack,
  tenant: Tenant,
  more: number,
): Promise<Map<string, string>> {
  const users = [tenant.userId];
  for (let i = 0; i < more; i++)
    users.push((await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id)).id);
  const consents = new Map<string, string>();
  for (const userId of users) {
    const apps = { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url };
    consents.set(userId, await connectBank(apps, tenant.merchant.apiKey.key, userId));
  }
  return consents;
}

/** A fresh user of `tenant` with a bank connected: the user's id and the local consent's. */
export async function connectedUser(stack: Stack, tenant: Tenant) {
  const userId = (await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id)).id;
  const consentId = await connectBank(
    { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
    tenant.merchant.apiKey.key,
    userId,
  );
  return { userId, consentId };
}

/**
 * A fresh user of `tenant` with a bank connected: its savings account (id, upstream id) and the consent.
 * Its first sync is queued; a test that drives attempts itself runs it (`activeSyncRun`).
 */
export async function connectedSavingsAccount(stack: Stack, tenant: Tenant) {
  const { consentId } = await connectedUser(stack, tenant);
  const [account] = await stack.api.app.get(DatabasePool).rows<{ id: string; upstreamId: string }>({
    text: `SELECT id, upstream_account_id AS "upstreamId" FROM accounts WHERE consent_id = $1 AND type = 'SAVINGS'`,
    values: [consentId],
  });
  return { ...account, consentId };
}

/**
 * A test that is its own worker runs its syncs as asked by the user present: they read the bank on the
 * user's behalf, so however many a test runs of one account, none is one of the bank's daily reads.
 */
export const attendedSync = () => ({
  ipAddress: USER_PRESENT['psu-ip-address'],
  presentUntil: Date.now() + 60_000,
});

/** The account's active sync run (the one authorisation queued, or a new manual one): its id. */
export async function activeSyncRun(stack: Stack, tenant: Tenant, accountId: string): Promise<string> {
  const [run] = await stack.api.app
    .get(SyncRunRepository)
    .openRuns([{ merchantId: tenant.merchant.merchant.id, accountId }], 'MANUAL');
  return run.id;
}

/** A sync of the account run here as the worker's last attempt, so it ends in this call: its outcome. */
export async function syncToEnd(stack: Stack, tenant: Tenant, accountId: string): Promise<SyncOutcome> {
  const runId = await activeSyncRun(stack, tenant, accountId);
  return stack.api.app
    .get(AccountSyncService)
    .run(
      { merchantId: tenant.merchant.merchant.id, accountId, runId, attended: attendedSync() },
      { finalAttempt: true, retryInMs: 0 },
    );
}

/**
 * One attempt of a sync run, in a job's context as the worker's processor runs it, for a test that is
 * its own worker: `finalAttempt` and `retryInMs` tell the sync what the queue would do next. Its outcome,
 * or 'threw' for an attempt that failed (the queue would try again, or the run failed).
 */
export function syncAttempt(
  stack: Stack,
  tenant: Tenant,
  { accountId, runId }: { accountId: string; runId: string },
  next: { finalAttempt: boolean; retryInMs: number },
): Promise<SyncOutcome | 'threw'> {
  return runInContext({ requestId: jobRequestId('sync.account', runId) }, () =>
    stack.api.app
      .get(AccountSyncService)
      .run({ merchantId: tenant.merchant.merchant.id, accountId, runId, attended: attendedSync() }, next),
  ).catch(() => 'threw' as const);
}
