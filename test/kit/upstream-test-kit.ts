import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import type { AppConfig } from '#libs/config';
import { captureLogger, testConfig } from '#libs/testing';
import { type PaymentRequest, UpstreamClient, type UpstreamClientOptions } from '#libs/upstream-client';
import { type RunningHttpApp, startSandbox } from './running-apps.js';
import { SandboxHttp } from './sandbox-http.js';

export const SUB_A = '00000000-0000-4000-8000-0000000000a1';

/** A sandbox over real HTTP, a client pointed at it, and the control API. */
/** The consent details a strict upstream requires of an account authorisation (spec 2.5): scopes, expiry. */
export const accountRequest = () => ({
  featureScope: ['ACCOUNTS', 'ACCOUNT_BALANCES', 'ACCOUNT_TRANSACTIONS'],
  expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
});

export class UpstreamKit {
  readonly config: AppConfig = testConfig();
  sandbox!: RunningHttpApp;
  admin!: SandboxHttp;
  readonly clients: UpstreamClient[] = [];

  async start(): Promise<this> {
    this.sandbox = await startSandbox(this.config);
    this.admin = new SandboxHttp(this.sandbox.url, this.config);
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close()));
    await this.sandbox?.close();
  }

  /** A client with fast test defaults: short backoff, short breaker, real HTTP. */
  client(overrides: Partial<UpstreamClientOptions> = {}): UpstreamClient {
    const client = new UpstreamClient({
      baseUrl: this.sandbox.url,
      applicationId: this.config.upstream.applicationId,
      applicationSecret: this.config.upstream.applicationSecret,
      apiVersion: '1',
      timeoutMs: 5_000,
      retry: { initialDelayMs: 5, maxDelayMs: 20 },
      breaker: { consecutiveFailures: 3, halfOpenAfterMs: 200 },
      ...overrides,
    });
    this.clients.push(client);
    return client;
  }

  /** A client whose logs and metrics the test can read. */
  observedClient(overrides: Partial<UpstreamClientOptions> = {}) {
    const capture = captureLogger('upstream-test', 'trace');
    const registry = new Registry();
    const client = this.client({ logger: capture.logger, registry, ...overrides });
    return { client, registry, logs: capture };
  }

  async reset(): Promise<void> {
    const res = await this.admin.admin('POST', '/reset');
    if (res.status !== 200) throw new Error(`reset failed: ${res.status}`);
  }

  /** An AUTHORIZED data consent, made through the control API (no browser). */
  async dataConsent(
    institutionId = 'sandbox-redirect',
    applicationUserId = 'kit-user',
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; token: string }> {
    const res = await this.admin.admin('POST', '/consents', { institutionId, applicationUserId, ...extra });
    if (res.status !== 201) throw new Error(`consent failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.data.id, token: res.body.data.consentToken };
  }

  async authorise(consentId: string): Promise<string> {
    const res = await this.admin.admin('POST', `/consents/${consentId}/authorise`);
    if (res.status !== 200) throw new Error(`authorise failed: ${res.status}`);
    return res.body.data.consentToken as string;
  }

  /**
   * A payment consent asked for through `client` (the client under test, or one behind a proxy) and
   * approved through the control API, as the bank page would: its token.
   */
  async authorisedPayment(client: UpstreamClient, paymentRequest: PaymentRequest): Promise<string> {
    const auth = await client.payments.createAuthorisation({
      institutionId: 'sandbox-payments',
      applicationUserId: 'u',
      paymentRequest,
    });
    return this.authorise(auth.data.id);
  }

  async fault(rule: Record<string, unknown>): Promise<void> {
    const res = await this.admin.admin('POST', '/faults', rule);
    if (res.status !== 201 && res.status !== 200) throw new Error(`fault failed: ${res.status}`);
  }

  /** How many requests each fault rule matched and hit. */
  async faultHits(): Promise<{ path: string; matched: number; hits: number }[]> {
    return (await this.admin.admin('GET', '/faults')).body.data;
  }

  /** The hits of each fault rule, in the order they were added. */
  async hits(): Promise<number[]> {
    return (await this.faultHits()).map((f) => f.hits);
  }
}

/**
 * One sandbox per test file, reset to its seeded state before every test. Call it inside `describe`; a
 * file's own `beforeAll` registered afterwards runs once the sandbox is up, so it can make its clients.
 * Real timers come back after every test, so one that fails while faking them does not stall the next.
 */
export function useUpstreamKit(): UpstreamKit {
  const kit = new UpstreamKit();
  beforeAll(async () => {
    await kit.start();
  });
  afterAll(() => kit.stop());
  beforeEach(() => kit.reset());
  afterEach(() => {
    vi.useRealTimers();
  });
  return kit;
}

/** Every value an async iterable yields (a client's pages, their items), in order: ES2023 has no Array.fromAsync. */
export async function collect<T>(values: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const value of values) all.push(value);
  return all;
}

export interface TinyServer {
  url: string;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders }[];
  close: () => Promise<void>;
}

/** A real HTTP server for answers the sandbox cannot give (HTML 502s, misbehaving paging). */
export async function tinyServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void,
): Promise<TinyServer> {
  const requests: TinyServer['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => handler(req, res, requests.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function clientFor(url: string, overrides: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  return new UpstreamClient({
    baseUrl: url,
    applicationId: 'app-id',
    applicationSecret: 'app-secret',
    apiVersion: '1',
    timeoutMs: 2_000,
    retry: { initialDelayMs: 5, maxDelayMs: 20 },
    breaker: false,
    ...overrides,
  });
}

/** Runs `fn` and returns the error it throws (failing the test if it does not). */
export async function failure<E = unknown>(fn: () => Promise<unknown>): Promise<E> {
  try {
    await fn();
  } catch (error) {
    return error as E;
  }
  throw new Error('expected the call to fail');
}

export interface Proxy {
  url: string;
  /** TCP connections the client opened to the proxy. */
  connections: number;
  /** Requests forwarded whose answer was then thrown away. */
  dropped: string[];
  close: () => Promise<void>;
}

/**
 * A forwarding proxy in front of the sandbox. For requests `loseReply` picks, it forwards the request,
 * waits until the sandbox has answered (so the work is done), then destroys the client's socket: the
 * reply is lost on the way back, as when a connection dies mid-answer.
 */
export async function proxyTo(
  target: string,
  loseReply: (method: string, url: string) => boolean = () => false,
): Promise<Proxy> {
  const state: Proxy = { url: '', connections: 0, dropped: [], close: async () => {} };
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
        agent,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          if (loseReply(req.method ?? '', req.url ?? '')) {
            state.dropped.push(`${req.method} ${req.url}`);
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => req.socket.destroy());
    req.pipe(forward);
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      agent.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
