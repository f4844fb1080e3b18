import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { AppConfig } from '#libs/config';
import type { MerchantCaller } from '#libs/context';
import { UserRepository } from '#libs/domain/users';
import type { AppLogger } from '#libs/observability';
import { createRedisClient } from '#libs/redis';
import { testConfig, uniqueQueuePrefix } from '#libs/testing';
import type { CreateMerchantInput } from '../../apps/api/src/admin/inputs/create-merchant.input.js';
import type { CreateConsentInput } from '../../apps/api/src/consents/inputs/create-consent.input.js';
import type { CreateUserInput } from '../../apps/api/src/users/inputs/create-user.input.js';
import { ApiClient } from './api-client.js';
import { connectBank } from './bank-consents.js';
import { type CreatedMerchant, createMerchant, createUser, uniqueName } from './factories.js';
import {
  type ApiStartOptions,
  freePort,
  type RunningHttpApp,
  startApi,
  startSandbox,
  startWorker,
} from './running-apps.js';
import { SandboxHttp } from './sandbox-http.js';
import { scratchDatabase } from './scratch-database.js';

/**
 * The one test kit for the api: a running stack (sandbox + api, worker on request), on-boarding through
 * the real routes, and request bodies typed against the DTOs; its HTTP client is api-client.ts.
 */

// ---- request bodies, typed against the DTOs the routes validate with -----------------------------------

export const bodies = {
  merchant: (overrides: Partial<CreateMerchantInput> = {}) =>
    ({ name: uniqueName('merchant'), ...overrides }) satisfies CreateMerchantInput,
  user: (overrides: Partial<CreateUserInput> = {}) =>
    ({ reference: uniqueName('user'), ...overrides }) satisfies CreateUserInput,
  consent: (overrides: Partial<CreateConsentInput> = {}) =>
    ({
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://app.merchant.example/banks/done',
      ...overrides,
    }) satisfies CreateConsentInput,
};

// ---- a running stack ---------------------------------------------------------------------------------

type Api = RunningHttpApp & { config: AppConfig };
type Worker = Awaited<ReturnType<typeof startWorker>>;

export interface Stack {
  sandbox: RunningHttpApp;
  api: Api;
  worker?: Worker;
  /** The database the stack's apps use, for processes a test starts on it itself. */
  databaseUrl: string;
  /** The operator's client (ADMIN_TOKEN). */
  operator: ApiClient;
  /** An unauthenticated client; `.as(token)` for any other caller. */
  anonymous: ApiClient;
  /**
   * Another api in this process, on the stack's sandbox, database and overrides plus `overrides`: a
   * second instance sharing Redis, or one setting a single test needs. It logs errors only, unless
   * `overrides` says otherwise (the stack's loggers are its own apps'). Closed with the stack unless the
   * test closes it first.
   */
  startApi(overrides?: Record<string, string>, options?: ApiStartOptions): Promise<Api>;
  /** Another worker, on the stack's sandbox, database and overrides plus `overrides`; closed likewise. */
  startWorker(overrides?: Record<string, string>): Promise<Worker & { close(): Promise<void> }>;
  /**
   * Closes the apps, then drops the keys of the stack's own queue prefix (dropQueueKeys) and its own
   * database (if it has one), the database even when closing failed.
   */
  close(): Promise<void>;
}

export interface StackOptions {
  overrides?: Record<string, string>;
  /** A worker in this process, on a queue prefix of the stack's own unless `overrides` sets QUEUE_PREFIX. */
  worker?: boolean;
  /**
   * A migrated database of the stack's own, named after this label (letters, digits, `_`, `-`), and a
   * queue prefix of its own unless `overrides` sets QUEUE_PREFIX: for a test whose subject acts on every
   * row of its database (relays, sweeps, dispatchers, admin lists). `close()` drops the database.
   */
  ownDatabase?: string;
  /** Where the apps log (a `captureLogger`), for tests that read the logs. */
  loggers?: { api?: AppLogger; worker?: AppLogger; sandbox?: AppLogger };
  /**
   * Sandbox and api on free ports their public URLs name (SANDBOX_PUBLIC_URL, API_PUBLIC_URL), as under
   * `npm start`, instead of random ones behind a fixed API_PUBLIC_URL: for clients outside this process
   * that follow the links the apps write (a browser, the README's curl).
   */
  publicPorts?: boolean;
}

/** Settings that put a stack on a Redis of a test's own, which the test stops or removes itself. */
const REDIS_ELSEWHERE = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'];

/**
 * Every key of the queues on `redis.queuePrefix`, from the Redis the test files share: a prefix of a
 * stack's own is never used again, and each `npm test` left some 3,000 keys (jobs waiting, jobs kept
 * after they ended) in a developer's Redis.
 */
async function dropQueueKeys(redis: AppConfig['redis']): Promise<void> {
  // A cluster is never the shared Redis (REDIS_ELSEWHERE), and keeps its keys on each node.
  if (redis.cluster) throw new Error('dropQueueKeys: not on a Redis Cluster');
  const client = createRedisClient(redis, { maxRetriesPerRequest: 1 }) as Redis;
  try {
    for await (const keys of client.scanStream({ match: `{${redis.queuePrefix}}:*`, count: 1000 }))
      if ((keys as string[]).length > 0) await client.unlink(...(keys as string[]));
  } finally {
    client.disconnect();
  }
}

/**
 * Sandbox and api on random ports (the api's public URL fixed, so callbacks can be re-based), a worker and
 * a database of their own when asked, all sharing `overrides`.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const database = options.ownDatabase === undefined ? undefined : await scratchDatabase(options.ownDatabase);
  const ports = options.publicPorts ? { sandbox: await freePort(), api: await freePort() } : undefined;
  const ownPrefix = uniqueQueuePrefix(options.ownDatabase ?? 'stack');
  const overrides: Record<string, string> = {
    LOG_LEVEL: 'error',
    API_PUBLIC_URL: 'http://localhost:3000',
    ...(ports
      ? {
          SANDBOX_PUBLIC_URL: `http://127.0.0.1:${ports.sandbox}`,
          API_PUBLIC_URL: `http://127.0.0.1:${ports.api}`,
        }
      : {}),
    // A worker takes every job on its prefix (see refuseSharedQueue): a stack with one has a prefix of its own.
    ...(database || options.worker ? { QUEUE_PREFIX: ownPrefix } : {}),
    ...options.overrides,
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  const dropsQueue =
    overrides.QUEUE_PREFIX === ownPrefix && !REDIS_ELSEWHERE.some((name) => name in overrides);
  // Whatever started is closed again (newest first), and the database dropped, when a later step fails.
  const started = new Set<{ close(): Promise<void> }>();
  /** `close` for an app started later, once: by the test, or else by the stack. */
  const later = (close: () => Promise<void>) => {
    const entry = {
      close: async () => {
        if (started.delete(entry)) await close();
      },
    };
    started.add(entry);
    return entry.close;
  };
  const closeAll = async () => {
    try {
      for (const app of [...started].reverse()) await app.close();
      if (dropsQueue) await dropQueueKeys(testConfig(overrides).redis);
    } finally {
      await database?.drop();
    }
  };
  try {
    const sandbox = await startSandbox(
      ports ? testConfig({ SANDBOX_PUBLIC_URL: overrides.SANDBOX_PUBLIC_URL }) : undefined,
      options.loggers?.sandbox,
      ports?.sandbox,
    );
    started.add(sandbox);
    const api = await startApi(sandbox.url, overrides, options.loggers?.api, { port: ports?.api });
    started.add(api);
    const worker = options.worker
      ? await startWorker({ ...overrides, UPSTREAM_BASE_URL: sandbox.url }, options.loggers?.worker)
      : undefined;
    if (worker) started.add(worker.app);
    return {
      sandbox,
      api,
      worker,
      databaseUrl: api.config.database.url,
      operator: new ApiClient(api.url, api.config.api.adminToken),
      anonymous: new ApiClient(api.url),
      async startApi(more = {}, apiOptions = {}) {
        const another = await startApi(
          sandbox.url,
          { ...overrides, LOG_LEVEL: 'error', ...more },
          undefined,
          { ...apiOptions, port: undefined },
        );
        return { ...another, close: later(another.close) };
      },
      async startWorker(more = {}) {
        const another = await startWorker({
          ...overrides,
          LOG_LEVEL: 'error',
          UPSTREAM_BASE_URL: sandbox.url,
          ...more,
        });
        return { ...another, close: later(() => another.app.close()) };
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}

/**
 * The stack a `describe` block's tests share, started in a `beforeAll` hook registered here and closed in
 * its `afterAll`: registered first, it is running before the block's own hooks and closed after them
 * (vitest runs before-hooks in order and after-hooks in reverse). The object returned is filled in when
 * the stack has started, so use it in hooks and tests, not while the block is being collected. Options
 * that need awaiting (a free port) come from a function, called when the stack starts.
 */
export function useStack(options: StackOptions | (() => Promise<StackOptions>) = {}): Stack {
  const stack = {} as Stack;
  beforeAll(async () => {
    Object.assign(stack, await startStack(typeof options === 'function' ? await options() : options));
  });
  afterAll(async () => {
    // Unset when starting failed: startStack has closed what it started.
    await stack.close?.();
  });
  return stack;
}

export interface Tenant {
  merchant: CreatedMerchant;
  /** The merchant's client (its API key). */
  client: ApiClient;
  userId: string;
}

/** The tenant's merchant as its API key authenticates, for calling a domain service directly. */
export const merchantCallerOf = (tenant: Tenant): MerchantCaller => ({
  kind: 'merchant',
  merchantId: tenant.merchant.merchant.id,
  apiKeyId: tenant.merchant.apiKey.id,
});

/** A merchant on-boarded through the operator route (with `merchant`'s fields), with one user. */
export async function onboard(
  stack: Stack,
  merchant: Parameters<typeof createMerchant>[1] = {},
): Promise<Tenant> {
  const created = await createMerchant(stack.api, merchant);
  const user = await createUser(stack.api.app.get(UserRepository), created.merchant.id);
  return { merchant: created, client: stack.anonymous.as(created.apiKey.key), userId: user.id };
}

/** A tenant on-boarded before the block's tests (as `useStack`'s stack, filled in when it is ready). */
export function useTenant(stack: Stack): Tenant {
  const tenant = {} as Tenant;
  beforeAll(async () => {
    Object.assign(tenant, await onboard(stack));
  });
  return tenant;
}

/** The stack's sandbox as the upstream's clients drive it, usable once the stack has started. */
export const sandboxOf = (stack: Stack): SandboxHttp =>
  new SandboxHttp(
    () => stack.sandbox.url,
    () => stack.api.config,
  );

/**
 * The stack's sandbox, for a block whose tests script faults at its bank: every fault rule is cleared
 * after them, so none outlives the block on a sandbox another block may share.
 */
export function useBankFaults(stack: Stack): SandboxHttp {
  const sandbox = sandboxOf(stack);
  afterAll(async () => {
    // Unset when the stack did not start: there is no sandbox to clear.
    if (stack.sandbox) await sandbox.admin('DELETE', '/faults');
  });
  return sandbox;
}

/** A consent of the tenant's user, approved at the sandbox bank as a browser would: its local id. */
export function connect(stack: Stack, tenant: Tenant, institutionId?: string): Promise<string> {
  return connectBank(
    { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
    tenant.merchant.apiKey.key,
    tenant.userId,
    institutionId,
  );
}
