import { expect } from 'vitest';
import type { AppConfig } from '#libs/config';
import type { MerchantCaller } from '#libs/context';
import { UserRepository } from '#libs/domain/users';
import type { AppLogger } from '#libs/observability';
import { testConfig, uniqueQueuePrefix } from '#libs/testing';
import type { CreateMerchantInput } from '../../apps/api/src/admin/inputs/create-merchant.input.js';
import type { CreateConsentInput } from '../../apps/api/src/consents/inputs/create-consent.input.js';
import type { CreateUserInput } from '../../apps/api/src/users/inputs/create-user.input.js';
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
import { scratchDatabase } from './scratch-database.js';

/**
 * The one test kit for the api: a typed HTTP client, a running stack (sandbox + api, worker on request),
 * on-boarding through the real routes, and request bodies typed against the DTOs.
 */

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else its text (undefined when empty). */
  body: T;
}

/** The api's success envelope: what every 2xx answer with a body wraps its data in. */
export interface Envelope<T> {
  data: T;
  meta: { tracingId: string; count?: number; nextCursor?: string | null };
  links?: { next?: string };
}

/** The api's error envelope. */
export interface ErrorBody {
  error: {
    code: string;
    status: number;
    message: string;
    details?: { field: string; issue: string }[];
    upstream?: { status: number; tracingId?: string };
  };
}

export interface ApiCallOptions {
  body?: unknown;
  /** Sent as is, instead of `body`'s JSON. */
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Overrides the client's bearer token; `null` sends none. */
  token?: string | null;
}

/**
 * What every answer of the api holds, checked on every call of the helper: a 429 or a 503 says when to
 * try again, as a Retry-After header of whole seconds and the same number in the envelope.
 */
function expectRetryAfterStated(response: Response, body: unknown): void {
  if (response.status !== 429 && response.status !== 503) return;
  const error = (body as { error?: { retryAfterSeconds?: unknown } } | undefined)?.error;
  if (!error) return; // not the api's envelope (a readiness probe's report)
  const header = response.headers.get('retry-after');
  expect(header, `${response.status} without Retry-After: ${JSON.stringify(body)}`).toMatch(/^\d+$/);
  expect(error.retryAfterSeconds, `${response.status}: Retry-After in the envelope`).toBe(Number(header));
}

/**
 * The one request helper of the tests: a client for the api (`stack.operator`, `stack.anonymous`,
 * `tenant.client`, `.as(token)` for any other caller), answers typed by `get<Envelope<T>>` or read with
 * `dataOf`. `send` below is its raw form, for a request to another app or a URL a test was handed. Every
 * answer is read whole before it is returned: an unread body keeps its connection busy, and closing the
 * api would then wait for it.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  /** The same client with another bearer token. */
  as(token: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  async call<T = any>(method: string, path: string, options: ApiCallOptions = {}): Promise<ApiResponse<T>> {
    const token = options.token === undefined ? this.token : options.token;
    const response = await send(`${this.baseUrl}${path}`, method, { ...options, token });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
    const body = (json ? JSON.parse(text) : text || undefined) as T;
    expectRetryAfterStated(response, body);
    return { status: response.status, headers: response.headers, body };
  }

  get<T = any>(path: string, options?: ApiCallOptions) {
    return this.call<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options: ApiCallOptions = {}) {
    return this.call<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options: ApiCallOptions = {}) {
    return this.call<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: ApiCallOptions) {
    return this.call<T>('DELETE', path, options);
  }
}

/**
 * One request to the api (or any app of the stack), answered as a `Response` whose body has already been
 * read whole: an unread body keeps its connection busy, and closing the app would then wait for it.
 * Redirects are not followed (the callback's 302 is what tests look at).
 */
export async function send(
  url: string,
  method: string,
  options: Omit<ApiCallOptions, 'token'> & { token?: string | null } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (typeof options.body === 'string') payload = options.body;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] ??= options.contentType ?? 'application/json';
  const response = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
  const bytes = await response.arrayBuffer();
  const empty = bytes.byteLength === 0 || [204, 304].includes(response.status);
  return new Response(empty ? null : bytes, { status: response.status, headers: response.headers });
}

/** `data` of a success envelope, or an error naming what came back instead. */
export function dataOf<T = any>(response: ApiResponse, status = 200): T {
  if (response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return (response.body as Envelope<T>).data;
}

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
  /** Closes the apps, then drops the stack's own database (if it has one), even when closing failed. */
  close(): Promise<void>;
}

export interface StackOptions {
  overrides?: Record<string, string>;
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

/**
 * Sandbox and api on random ports (the api's public URL fixed, so callbacks can be re-based), a worker and
 * a database of their own when asked, all sharing `overrides`.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const database = options.ownDatabase === undefined ? undefined : await scratchDatabase(options.ownDatabase);
  const ports = options.publicPorts ? { sandbox: await freePort(), api: await freePort() } : undefined;
  const overrides: Record<string, string> = {
    LOG_LEVEL: 'error',
    API_PUBLIC_URL: 'http://localhost:3000',
    ...(ports
      ? {
          SANDBOX_PUBLIC_URL: `http://127.0.0.1:${ports.sandbox}`,
          API_PUBLIC_URL: `http://127.0.0.1:${ports.api}`,
        }
      : {}),
    ...(database ? { QUEUE_PREFIX: uniqueQueuePrefix(options.ownDatabase!) } : {}),
    ...options.overrides,
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
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

/** A consent of the tenant's user, approved at the sandbox bank as a browser would: its local id. */
export function connect(stack: Stack, tenant: Tenant, institutionId?: string): Promise<string> {
  return connectBank(
    { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
    tenant.merchant.apiKey.key,
    tenant.userId,
    institutionId,
  );
}
