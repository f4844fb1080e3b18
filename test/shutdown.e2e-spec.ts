import { connect } from 'node:net';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, migrate } from '#libs/database';
import { bullmqPrefix, JOB_DEFINITIONS, QueueName } from '#libs/queue';
import {
  ApiClient,
  bankRedirect,
  createMerchant,
  dataOf,
  eventually,
  type ProcessEnd,
  SandboxHttp,
  spawnApi,
  spawnSandbox,
  spawnWorker,
  testConfig,
  tuned,
  uniqueName,
  uniqueQueuePrefix,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from './kit/private-services.mjs';

/** The bound an orchestrator gives before SIGKILL (docker's default, and `npm start`'s). */
const BOUND_MS = 10_000;
/**
 * A worker stopped while Redis is away waits for nothing it could not record: it takes the time of its
 * bounded closes (about 2 s), here with room for a loaded machine, and well under the 5 s drain it skips.
 */
const OUTAGE_STOP_MS = 5_000;

/**
 * Each process on SIGTERM, with its infrastructure up, with Redis down and with Postgres down: it must
 * exit by itself, with code 0, within the bound. A private Redis and Postgres, so stopping them touches
 * no other test.
 */
describe('graceful shutdown in every state', () => {
  const prefix = uniqueQueuePrefix('shutdown');
  let redis: PrivateRedis;
  let postgres: PrivatePostgres;
  let sandbox: WorkerProcess & { url: string };
  const config = testConfig();

  const env = () => ({
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    UPSTREAM_BASE_URL: sandbox.url,
    LOG_LEVEL: 'info',
  });

  /** A worker process, once it has said it is consuming. */
  async function readyWorker(overrides: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = spawnWorker({ ...env(), ...overrides });
    await eventually(
      'worker ready',
      () => (worker.output().includes('worker ready') ? true : undefined),
      WAIT.step,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${worker.output()}`);
    });
    return worker;
  }

  const start = {
    api: () => spawnApi(env()),
    worker: () => readyWorker(),
    sandbox: () => spawnSandbox({ LOG_LEVEL: 'info' }),
  };

  /**
   * The end the bound promises: by itself, code 0, in time. `ended` is passed when the test acts between
   * the signal and the exit.
   */
  async function stopsWithinBound(
    process: WorkerProcess,
    ended: Promise<ProcessEnd> = process.signalled('SIGTERM'),
  ): Promise<void> {
    const end = await ended;
    expect({ ...end, ms: end.ms < BOUND_MS }, process.output()).toEqual({ code: 0, signal: null, ms: true });
  }

  /** The bank's redirect back to `api` for a consent the user approved, not yet followed. */
  async function callbackApproved(api: WorkerProcess & { url: string }): Promise<string> {
    const merchant = await createMerchant({ url: api.url, config });
    const client = new ApiClient(api.url, merchant.apiKey.key);
    const user = dataOf<{ id: string }>(
      await client.post('/v1/users', { reference: uniqueName('user') }),
      201,
    );
    const created = dataOf<{ authorisationUrl: string }>(
      await client.post(`/v1/users/${user.id}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: 'https://app.merchant.example/banks/done',
      }),
      201,
    );
    return bankRedirect({ apiUrl: api.url, sandboxUrl: sandbox.url }, created.authorisationUrl);
  }

  /** Registering the receiver upstream held for 3 s: longer than any closer waits for its connections. */
  const holdWebhookRegistration = (admin: SandboxHttp) =>
    admin.holdOnce({ method: 'POST', path: String.raw`/^\/webhook\/events$/`, latencyMs: 3_000 });

  /** The operator registering the api's webhook receiver upstream: a request that waits on the upstream. */
  const registerReceiver = (api: string, callbackUrl: string) =>
    fetch(`${api}/admin/upstream/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.api.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ callbackUrl }),
    });

  /** An upstream route answering after 30 s: a request to it outlasts the shutdown budget. */
  async function slowUpstream(admin: SandboxHttp, path: string, what: string): Promise<() => Promise<true>> {
    const fault = await admin.admin('POST', '/faults', { method: 'POST', path, latencyMs: 30_000 });
    expect(fault.status).toBe(201);
    return () =>
      eventually(`${what} waiting at the sandbox`, async () => {
        const faults = (await admin.admin('GET', '/faults')).body as { data: { hits: number }[] };
        return faults.data[0]?.hits === 1 ? true : undefined;
      });
  }

  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startPrivateRedis(), startPrivatePostgres()]);
    await migrate(postgres.url, defaultMigrationsDir());
    sandbox = await spawnSandbox();
  }, 60_000);

  afterAll(async () => {
    await sandbox?.stop();
    await Promise.all([redis?.destroy(), postgres?.destroy()]);
  });

  const states = {
    'everything up': { down: () => Promise.resolve(), up: () => Promise.resolve() },
    'Redis down': { down: () => redis.stop(), up: () => redis.start() },
    'Postgres down': { down: () => postgres.stop('fast'), up: () => postgres.start() },
  };

  for (const [state, { down, up }] of Object.entries(states)) {
    for (const app of ['api', 'worker', 'sandbox'] as const) {
      it(`${app} stops on SIGTERM within the bound, exit 0, with ${state}`, async () => {
        const process = await start[app]();
        await down();
        try {
          await stopsWithinBound(process);
          expect(process.output()).toContain('"msg":"stopped"');
        } finally {
          await up();
        }
      }, 60_000);
    }
  }

  // Found by the chaos soak: an api stopped during a Redis outage under load reached its own deadline and
  // exited 1. Each write's enqueue had given up (503) but stayed in ioredis's offline queue, and a QUIT sent
  // behind queued commands waits for Redis to return.
  it('api stops within the bound while work it tried to queue waits for a Redis that is gone', async () => {
    const api = await spawnApi(env());
    try {
      const callback = await callbackApproved(api);
      await redis.stop();
      const before = api.output().length;
      // The callback stores the consent and enqueues its checks and first syncs, which give up after 3 s.
      const back = await fetch(callback, { redirect: 'manual' });
      expect(back.status, api.output()).toBe(302);
      // Its enqueues (the callback check, the expiry, the first syncs) run after the answer: the first waits
      // out its deadline, and then the others fail at once rather than wait again.
      await eventually('the first syncs given up while Redis is away', () =>
        api.output().slice(before).includes('first sync not enqueued') ? true : undefined,
      );
      expect(api.output().slice(before)).toContain('Redis unreachable (an earlier call met');
      await stopsWithinBound(api);
    } finally {
      await redis.start();
      await api.stop();
    }
  }, 60_000);

  it('api lets a request in flight finish on SIGTERM, its database and upstream still open', async () => {
    const admin = new SandboxHttp(sandbox.url, config);
    // The upstream answers after 3 s (longer than any closer waits for its connections); the route then
    // writes the registration to Postgres.
    const held = await holdWebhookRegistration(admin);
    const api = await spawnApi(env());
    try {
      const inFlight = registerReceiver(api.url, 'http://127.0.0.1:9/v1/webhooks/upstream/finished').then(
        async (response) => ({ status: response.status, body: await response.text() }),
        (error: Error) => ({ status: 0, body: error.message }),
      );
      await held.hit();
      await stopsWithinBound(api);
      const answer = await inFlight;
      expect(answer.status, answer.body).toBe(201);
    } finally {
      await admin.admin('DELETE', '/faults');
      await api.stop();
    }
  }, 60_000);

  it('api finishes the start-up registration of its webhook receiver on SIGTERM: stored, and the one listed upstream', async () => {
    const admin = new SandboxHttp(sandbox.url, config);
    // The upstream answers the registration after 3 s; the api is stopped while it waits, before storing.
    const held = await holdWebhookRegistration(admin);
    const api = await spawnApi({ ...env(), UPSTREAM_WEBHOOK_AUTO_REGISTER: 'true' });
    const db = new pg.Client({ connectionString: postgres.url });
    try {
      // API_PUBLIC_URL unset: http://localhost and the api's port, this test's alone.
      const callbackUrl = `http://localhost:${new URL(api.url).port}/v1/webhooks/upstream`;
      await held.hit();
      await stopsWithinBound(api);
      await db.connect();
      const stored = await db.query<{ upstream_webhook_id: string }>(
        'SELECT upstream_webhook_id FROM upstream_webhooks WHERE callback_url = $1 AND retired_at IS NULL',
        [callbackUrl],
      );
      const listed = (
        (await admin.call('GET', '/webhook/events')).body.data.active as {
          id: string;
          callbackUrl: { main: { url: string } };
        }[]
      ).filter((w) => w.callbackUrl.main.url === callbackUrl);
      expect(
        stored.rows.map((r) => r.upstream_webhook_id),
        api.output(),
      ).toEqual(listed.map((w) => w.id));
      expect(listed).toHaveLength(1);
    } finally {
      await db.end();
      await admin.admin('DELETE', '/faults');
      await api.stop();
    }
  }, 60_000);

  it('api refuses a request arriving on an open connection while it closes: 503 in the envelope, Retry-After', async () => {
    const admin = new SandboxHttp(sandbox.url, config);
    // The first request holds its keep-alive connection open past SIGTERM; the second then arrives on it.
    const held = await holdWebhookRegistration(admin);
    const api = await spawnApi(env());
    const { hostname, port } = new URL(api.url);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    try {
      const body = JSON.stringify({ callbackUrl: 'http://127.0.0.1:9/v1/webhooks/upstream/closing' });
      socket.write(
        `POST /admin/upstream/webhooks HTTP/1.1\r\nHost: ${api.url.slice(7)}\r\n` +
          `Authorization: Bearer ${config.api.adminToken}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await held.hit();
      const ended = api.signalled('SIGTERM');
      await eventually(
        'the api shutting down',
        () => (api.output().includes('"msg":"shutting down"') ? true : undefined),
        WAIT.step,
      );
      socket.write(`GET /v1/institutions HTTP/1.1\r\nHost: ${api.url.slice(7)}\r\n\r\n`);
      await closed;
      await stopsWithinBound(api, ended);
      const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
      expect(first, received).toMatch(/^HTTP\/1\.1 201 /);
      const [head, json] = (second ?? '').split('\r\n\r\n');
      expect(head, received).toMatch(/^HTTP\/1\.1 503 /);
      expect(head).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(head).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(json)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', status: 503 } });
    } finally {
      socket.destroy();
      await admin.admin('DELETE', '/faults');
      await api.stop();
    }
  }, 60_000);

  it('api finishes a bank callback in flight on SIGTERM: the consent stored, the user sent back AUTHORIZED', async () => {
    const admin = new SandboxHttp(sandbox.url, config);
    const api = await spawnApi(env());
    try {
      const callback = await callbackApproved(api);
      // The token exchange answers after 3 s (longer than any closer waits): the callback then stores the
      // consent through Prisma, which must still be connected.
      const held = await admin.holdOnce({
        method: 'POST',
        path: '/consent-one-time-token',
        latencyMs: 3_000,
      });
      const inFlight = fetch(callback, { redirect: 'manual' }).then(
        async (response) => ({
          status: response.status,
          location: response.headers.get('location') ?? (await response.text()),
        }),
        (error: Error) => ({ status: 0, location: error.message }),
      );
      await held.hit();
      await stopsWithinBound(api);
      const answer = await inFlight;
      expect(answer, api.output()).toMatchObject({ status: 302 });
      expect(new URL(answer.location).searchParams.get('status')).toBe('AUTHORIZED');
    } finally {
      await admin.admin('DELETE', '/faults');
      await api.stop();
    }
  }, 60_000);

  it('api stops within the bound while a request waits on a slow upstream, cutting it', async () => {
    const admin = new SandboxHttp(sandbox.url, config);
    // Registering the receiver upstream answers after 30 s: the request outlasts the shutdown budget.
    const waiting = await slowUpstream(admin, String.raw`/^\/webhook\/events$/`, 'the registration');
    const api = await spawnApi({ ...env(), UPSTREAM_TIMEOUT_MS: '60000' });
    try {
      const inFlight = registerReceiver(api.url, 'http://127.0.0.1:9/v1/webhooks/upstream').then(
        (response) => response.status,
        () => 'cut',
      );
      await waiting();
      await stopsWithinBound(api);
      expect(await inFlight).toBe('cut');
    } finally {
      await admin.admin('DELETE', '/faults');
      await api.stop();
    }
  }, 60_000);

  it('api releases the idempotency claim of a request it cut: a retry with the same key goes through at once', async () => {
    const admin = new SandboxHttp(sandbox.url, config);
    // Creating the user upstream answers after 30 s: the request outlasts the shutdown budget and is cut.
    const waiting = await slowUpstream(admin, String.raw`/^\/users$/`, 'the user creation');
    const api = await spawnApi({ ...env(), UPSTREAM_TIMEOUT_MS: '60000' });
    let next: Awaited<ReturnType<typeof spawnApi>> | undefined;
    try {
      const operator = new ApiClient(api.url, config.api.adminToken);
      const created = dataOf<{ apiKey: { key: string } }>(
        await operator.post('/admin/merchants', { name: uniqueName('idem-stop') }),
        201,
      );
      const createUser = (url: string) =>
        fetch(`${url}/v1/users`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${created.apiKey.key}`,
            'content-type': 'application/json',
            'idempotency-key': 'cut-by-a-stop',
          },
          body: JSON.stringify({ reference: 'customer-cut' }),
        });
      const inFlight = createUser(api.url).then(
        (response) => response.status,
        () => 'cut',
      );
      await waiting();
      await stopsWithinBound(api);
      expect(await inFlight).toBe('cut');
      await admin.admin('DELETE', '/faults');
      // The client retries at once, on the process that replaced the stopped one.
      next = await spawnApi(env());
      const retried = await createUser(next.url);
      expect(retried.status, await retried.clone().text()).toBeLessThan(300);
    } finally {
      await admin.admin('DELETE', '/faults');
      await api.stop();
      await next?.stop();
    }
  }, 60_000);

  /**
   * The institutions listing answering after 20 s, so a refresh job outlasts the shutdown budget; and the
   * maintenance queue to add that job to.
   */
  async function slowInstitutionsRefresh() {
    const admin = new SandboxHttp(sandbox.url, config);
    const fault = await admin.admin('POST', '/faults', {
      method: 'GET',
      path: String.raw`/^\/institutions$/`,
      latencyMs: 20_000,
    });
    expect(fault.status).toBe(201);
    const queue = new Queue(QueueName.Maintenance, {
      connection: { url: redis.url },
      prefix: bullmqPrefix(testConfig({ QUEUE_PREFIX: prefix })),
    });
    return { admin, queue };
  }

  it('a job running when its worker stops is handed back and completed by another worker', async () => {
    const { admin, queue } = await slowInstitutionsRefresh();
    const overrides = { UPSTREAM_TIMEOUT_MS: '60000', ...tuned({ institutionsRefreshMinutes: 0 }) };
    const first = await readyWorker(overrides);
    let second: WorkerProcess | undefined;
    try {
      const job = await queue.add(
        'maintenance.refresh-institutions',
        {},
        {
          ...JOB_DEFINITIONS['maintenance.refresh-institutions'].options,
          jobId: 'in-flight-refresh',
        },
      );
      await eventually('the job running on the first worker', async () =>
        (await job.getState()) === 'active' ? true : undefined,
      );
      await stopsWithinBound(first);
      expect(first.output()).toContain('job handed back to the queue');
      // Back in wait at once, not after a lock expiry, and with no attempt spent.
      expect(await queue.getJobState('in-flight-refresh')).toBe('waiting');

      expect((await admin.admin('DELETE', '/faults')).status).toBeLessThan(300);
      second = await readyWorker(overrides);
      const done = await eventually('the job completed by the second worker', async () => {
        const state = await queue.getJobState('in-flight-refresh');
        return state === 'completed' || state === 'failed' ? state : undefined;
      });
      expect(done).toBe('completed');
      const finished = await queue.getJob('in-flight-refresh');
      expect(finished?.attemptsMade).toBe(1);
      expect(finished?.returnvalue).toMatchObject({ count: expect.any(Number) });
    } finally {
      await admin.admin('DELETE', '/faults');
      await second?.stop();
      await first.stop();
      await queue.close();
    }
  }, 90_000);
  it('a worker whose job is running when Redis goes away stops at once, exit 0: nothing can be handed back', async () => {
    const { admin, queue } = await slowInstitutionsRefresh();
    const worker = await readyWorker({
      UPSTREAM_TIMEOUT_MS: '60000',
      ...tuned({ institutionsRefreshMinutes: 0 }),
    });
    try {
      const job = await queue.add(
        'maintenance.refresh-institutions',
        {},
        { ...JOB_DEFINITIONS['maintenance.refresh-institutions'].options, jobId: 'running-in-outage' },
      );
      await eventually('the job running', async () =>
        (await job.getState()) === 'active' ? true : undefined,
      );
      await queue.close();
      const before = worker.output().length;
      await redis.stop();
      await eventually('the worker has seen Redis go', () =>
        worker.output().slice(before).includes('connection error') ? true : undefined,
      );
      const end = await worker.signalled('SIGTERM');
      // Before, it waited for the job until 4 s before its budget (9 s) ran out, and then closed: past the
      // orchestrator's 10 s on a loaded machine.
      expect({ ...end, ms: end.ms < OUTAGE_STOP_MS }, worker.output()).toEqual({
        code: 0,
        signal: null,
        ms: true,
      });
      expect(worker.output()).toContain('job could not be handed back (Redis unreachable)');
    } finally {
      await redis.start();
      await admin.admin('DELETE', '/faults');
      await worker.stop();
    }
  }, 90_000);
});
