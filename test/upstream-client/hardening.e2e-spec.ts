import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { runInContext } from '#libs/context';
import { type CallOptions, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { eventually, WAIT } from '../kit/index.js';
import { paymentRequest } from '../kit/sandbox-payments.js';
import {
  accountRequest,
  clientFor,
  collect,
  failure,
  proxyTo,
  tinyServer,
  useUpstreamKit,
} from '../kit/upstream-test-kit.js';

const fail = (fn: () => Promise<unknown>) => failure<UpstreamError>(fn);
const json = (body: unknown) => JSON.stringify(body);
// Checked often: the work under test runs in this same process and finishes in milliseconds.
const OFTEN_MS = 20;

describe('upstream client: review fixes', () => {
  const kit = useUpstreamKit();
  let client: UpstreamClient;

  beforeAll(() => {
    client = kit.client();
  });

  describe('abort and deadline', () => {
    it('an abort ends the wait for a 5 s Retry-After at once', async () => {
      await kit.fault({ method: 'GET', path: '/institutions', status: 503, retryAfterSeconds: 5, count: 1 });
      const controller = new AbortController();
      const started = performance.now();
      const call = client.institutions.list({ signal: controller.signal });
      await eventually(
        'the first attempt reached the sandbox',
        async () => (await kit.hits())[0] === 1 || undefined,
        WAIT.work,
        OFTEN_MS,
      );
      controller.abort(new Error('caller gave up'));
      await expect(call).rejects.toThrow('caller gave up');
      // Functional, not a speed check: the 5 s wait was not waited out.
      expect(performance.now() - started).toBeLessThan(4_000);
    });

    it('a retry whose wait would pass the deadline is not made', async () => {
      await kit.fault({ method: 'GET', path: '/institutions', status: 503, retryAfterSeconds: 3, count: 1 });
      const error = await fail(() => client.institutions.list({ deadlineMs: 1_000 }));
      expect(error).toMatchObject({ kind: 'UNAVAILABLE', status: 503 });
      expect(await kit.hits()).toEqual([1]);
    });

    it("caps an attempt's timeout by what is left of the deadline", async () => {
      await kit.fault({ method: 'GET', path: '/institutions', latencyMs: 3_000 });
      const error = await fail(() => client.institutions.list({ timeoutMs: 10_000, deadlineMs: 300 }));
      expect(error).toMatchObject({ kind: 'UNAVAILABLE', shape: 'timeout' });
      expect(await kit.hits()).toEqual([1]);
    });

    it('the attempt timeout covers a body that stalls after the headers', async () => {
      const server = await tinyServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"data":[');
      });
      const raw = clientFor(server.url, { timeoutMs: 200, retry: { maxRetries: 0 } });
      try {
        expect(await fail(() => raw.institutions.list())).toMatchObject({ shape: 'timeout' });
      } finally {
        await raw.close();
        await server.close();
      }
    });
  });

  describe('paging guards', () => {
    it('follows a bare cursor that starts with /, and fails on a next link it cannot follow', async () => {
      const server = await tinyServer((req, res, n) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const next = n === 1 ? '/9j+cursor==' : n === 2 ? 'https://up.example/next-page' : undefined;
        res.end(json({ meta: { count: 1 }, data: [{ id: String(n) }], links: next ? { next } : {} }));
      });
      const raw = clientFor(server.url);
      try {
        let pages = 0;
        const error = await fail(async () => {
          for await (const _p of raw.data.realTimeTransactionPages(
            'acc',
            {},
            { consent: 'c', institutionId: 'tiny' },
          ))
            pages += 1;
        });
        expect(error).toMatchObject({ kind: 'PROTOCOL' });
        expect(pages).toBe(2);
        expect(server.requests[1].url).toBe(
          `/accounts/acc/real-time/transactions?cursor=${encodeURIComponent('/9j+cursor==')}`,
        );
      } finally {
        await raw.close();
        await server.close();
      }
    });

    it('ignores an unusable self.limit, and fails on a page holding more than its limit', async () => {
      const server = await tinyServer((req, res) => {
        const url = new URL(req.url!, 'http://x');
        const offset = Number(url.searchParams.get('offset'));
        const overfull = url.pathname.includes('overfull');
        res.writeHead(200, { 'content-type': 'application/json' });
        const size = overfull ? 20 : offset >= 20 ? 5 : 10;
        res.end(
          json({
            meta: { pagination: { totalCount: 25, self: { limit: overfull ? 10 : 0, offset } } },
            data: Array.from({ length: size }, (_, i) => ({ id: `${offset + i}` })),
          }),
        );
      });
      const raw = clientFor(server.url);
      const options = { consent: 'c', institutionId: 'tiny' };
      try {
        const offsets = (await collect(raw.data.transactionPages('acc', { limit: 10 }, options))).map(
          (page) => page.meta.pagination?.self?.offset,
        );
        expect(offsets).toEqual([0, 10, 20]);
        const error = await fail(async () => {
          for await (const _p of raw.data.transactionPages('overfull', { limit: 10 }, options)) void _p;
        });
        expect(error).toMatchObject({ kind: 'PROTOCOL' });
      } finally {
        await raw.close();
        await server.close();
      }
    });

    it('a list route answering data as an object is a PROTOCOL error', async () => {
      const server = await tinyServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(json({ meta: {}, data: { id: 'not-a-list' } }));
      });
      const raw = clientFor(server.url);
      try {
        const error = await fail(async () => {
          for await (const _p of raw.data.transactionPages(
            'acc',
            {},
            { consent: 'c', institutionId: 'tiny' },
          ))
            void _p;
        });
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error.kind).toBe('PROTOCOL');
      } finally {
        await raw.close();
        await server.close();
      }
    });

    it('pages reuse kept-alive connections instead of opening one per page', async () => {
      const { token } = await kit.dataConsent('sandbox-redirect', 'socket-user');
      const proxy = await proxyTo(kit.sandbox.url);
      const viaProxy = clientFor(proxy.url, {
        applicationId: kit.config.upstream.applicationId,
        applicationSecret: kit.config.upstream.applicationSecret,
      });
      try {
        const options = { consent: token, institutionId: 'sandbox-redirect' };
        const savings = (await viaProxy.data.getAccounts(options)).data.find(
          (a) => a.accountType === 'SAVINGS',
        )!;
        let pages = 0;
        for await (const _p of viaProxy.data.transactionPages(savings.id, { limit: 50 }, options)) pages += 1;
        expect(pages).toBe(10);
        // Kept alive and reused: undici's pool may hand the next page to a second idle connection
        // while the first is still being marked free, so two, never one per page.
        expect(proxy.connections).toBeLessThanOrEqual(2);
      } finally {
        await viaProxy.close();
        await proxy.close();
      }
    });
  });

  describe('body size caps', () => {
    it('refuses a declared, a chunked and an error body over the cap', async () => {
      const big = 'x'.repeat(5_000);
      const server = await tinyServer((req, res) => {
        if (req.url!.includes('declared')) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100_000_000 });
          res.write('{');
          return;
        }
        if (req.url!.includes('error')) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(big);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"id":"${big}`);
        res.end(`${big}"}`);
      });
      const raw = clientFor(server.url, {
        retry: { maxRetries: 0 },
        bodyLimits: { successBytes: 8_000, errorBytes: 1_000 },
      });
      try {
        for (const id of ['declared', 'chunked', 'error']) {
          expect(await fail(() => raw.institutions.get(id))).toMatchObject({ kind: 'PROTOCOL' });
        }
        // Within the cap it still works.
        const small = clientFor(server.url, { bodyLimits: { successBytes: 20_000 } });
        expect((await small.institutions.get('chunked').finally(() => small.close())).status).toBe(200);
      } finally {
        await raw.close();
        await server.close();
      }
    });
  });

  describe('circuit breakers', () => {
    it("calls without an institution count against their merchant's operation, not the service", async () => {
      const guarded = kit.client({
        retry: { maxRetries: 0 },
        breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 },
      });
      await kit.fault({ method: 'GET', path: '/institutions', status: 500 });
      const as = <T>(merchantId: string, fn: () => Promise<T>) =>
        runInContext({ requestId: merchantId, caller: { kind: 'merchant', merchantId, apiKeyId: 'k' } }, fn);
      await fail(() => as('a', () => guarded.institutions.list()));
      await fail(() => as('a', () => guarded.institutions.list()));
      expect(guarded.breakerState('merchant:a/getInstitutions')).toBe('open');
      expect(guarded.breakerState('upstream')).toBe('closed');
      expect(await fail(() => as('a', () => guarded.institutions.list()))).toMatchObject({
        shape: 'circuitOpen',
      });
      expect(await kit.hits()).toEqual([2]);
      // Another merchant's same call, and this merchant's other calls, still reach the upstream.
      expect(await fail(() => as('b', () => guarded.institutions.list()))).toMatchObject({ status: 500 });
      expect((await as('a', () => guarded.institutions.get('sandbox-redirect'))).status).toBe(200);
    });

    it("a bank's failures count against that bank alone, whatever source the upstream names; a 400 does not", async () => {
      const guarded = kit.client({
        retry: { maxRetries: 0 },
        breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 },
      });
      const { token } = await kit.dataConsent('sandbox-redirect', 'attribution');
      const on = { consent: token, institutionId: 'sandbox-redirect' };
      const account = (await guarded.data.getAccounts(on)).data[0].id;
      for (let i = 0; i < 3; i += 1)
        await fail(() => guarded.data.getTransactions(account, { limit: 5000 }, on));
      expect(guarded.breakerState('sandbox-redirect')).toBe('closed');
      expect(guarded.breakerState('upstream')).toBe('closed');

      // The upstream blames itself (source YAPILY) for a call to this bank: it is this bank's failure.
      await kit.fault({ method: 'GET', path: `/accounts/${account}/balances`, status: 500, count: 1 });
      expect(await fail(() => guarded.data.getAccountBalances(account, on))).toMatchObject({ status: 500 });
      expect(guarded.breakerState('sandbox-redirect')).toBe('closed');

      await kit.fault({ method: 'GET', path: `/accounts/${account}/balances`, status: 424 });
      expect(await fail(() => guarded.data.getAccountBalances(account, on))).toMatchObject({ status: 424 });
      expect(guarded.breakerState('sandbox-redirect')).toBe('open');
      expect(guarded.breakerState('upstream')).toBe('closed');
      expect((await guarded.institutions.list()).status).toBe(200);
    });

    it('a half-open breaker is not closed by a 400, only by a success', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const guarded = kit.client({
        retry: { maxRetries: 0 },
        breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 },
      });
      const { token } = await kit.dataConsent('sandbox-redirect', 'half-open');
      const on = { consent: token, institutionId: 'sandbox-redirect' };
      const account = (await guarded.data.getAccounts(on)).data[0].id;
      await kit.fault({ method: 'GET', path: `/accounts/${account}/balances`, status: 503, count: 2 });
      for (let i = 0; i < 2; i += 1) await fail(() => guarded.data.getAccountBalances(account, on));
      expect(guarded.breakerState('sandbox-redirect')).toBe('open');

      vi.setSystemTime(Date.now() + 61_000);
      expect(await fail(() => guarded.data.getTransactions(account, { limit: 5000 }, on))).toMatchObject({
        kind: 'CALLER',
        status: 400,
      });
      expect(guarded.breakerState('sandbox-redirect')).toBe('halfOpen');
      expect((await guarded.data.getAccountBalances(account, on)).status).toBe(200);
      expect(guarded.breakerState('sandbox-redirect')).toBe('closed');
    });

    it('time queued for a pooled connection counts against nobody, and a queued POST is retried', async () => {
      const pool = kit.client({
        connections: 1,
        timeoutMs: 400,
        retry: { maxRetries: 3, initialDelayMs: 5, maxDelayMs: 20 },
        breaker: { consecutiveFailures: 1, halfOpenAfterMs: 60_000 },
      });
      await kit.fault({ method: 'GET', path: '/institutions', latencyMs: 900, count: 1 });
      const slow = pool.institutions.list({ timeoutMs: 5_000 });
      await eventually(
        'the first attempt reached the sandbox',
        async () => (await kit.hits())[0] === 1 || undefined,
        WAIT.work,
        OFTEN_MS,
      );
      const created = await pool.consents.createAccountAuthorisation({
        institutionId: 'sandbox-redirect',
        applicationUserId: 'queued',
        accountRequest: accountRequest(),
      });
      expect(created.status).toBe(201);
      expect((await slow).status).toBe(200);
      expect(pool.breakerState('sandbox-redirect')).toBe('closed');
      expect(pool.breakerState('upstream')).toBe('closed');
    });
  });

  describe('consent header and classification', () => {
    it('sends the consent header only on routes that take one', async () => {
      const server = await tinyServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(json({ meta: {}, data: [] }));
      });
      const raw = clientFor(server.url);
      try {
        const smuggled = { consent: 'secret-token' } as CallOptions;
        await raw.institutions.list(smuggled);
        expect(server.requests[0].headers).not.toHaveProperty('consent');
      } finally {
        await raw.close();
        await server.close();
      }
    });

    it("a consent call's unknown 403 refuses that call only, and a 401 naming our credentials is AUTH", async () => {
      const server = await tinyServer((req, res) => {
        const credentials = req.url!.includes('balances');
        res.writeHead(credentials ? 401 : 403, { 'content-type': 'application/json' });
        res.end(
          json({
            error: {
              tracingId: 't',
              source: 'YAPILY',
              issues: [
                credentials
                  ? { type: 'CREDENTIALS', code: 'CREDENTIALS_INVALID' }
                  : { type: 'UNAUTHORIZED', code: 'SOMETHING_NEW' },
              ],
            },
          }),
        );
      });
      const raw = clientFor(server.url, { retry: { maxRetries: 0 } });
      const on = { consent: 'c', institutionId: 'tiny' };
      try {
        // Issue 8: only a consent-state code makes a 403 the consent's fault; an unknown one is not fatal to it.
        expect(await fail(() => raw.data.getAccounts(on))).toMatchObject({ kind: 'FORBIDDEN', status: 403 });
        expect(await fail(() => raw.data.getAccountBalances('a', on))).toMatchObject({
          kind: 'AUTH',
          status: 401,
        });
        expect(await fail(() => raw.applications.get('a'))).toMatchObject({ kind: 'FORBIDDEN', status: 403 });
      } finally {
        await raw.close();
        await server.close();
      }
    });

    it('refuses . and .. as path ids without sending anything', async () => {
      const server = await tinyServer((_req, res) => res.end('{}'));
      const raw = clientFor(server.url);
      try {
        for (const id of ['.', '..']) {
          const error = await fail(() =>
            raw.payments.getDetails(id, { consent: 'c', institutionId: 'tiny' }),
          );
          expect(error).toMatchObject({ kind: 'CALLER' });
        }
        expect(server.requests).toHaveLength(0);
      } finally {
        await raw.close();
        await server.close();
      }
    });
  });

  describe('retry modes and request ids', () => {
    it('retries a user PATCH only when every op is replace; extendConsent follows the POST rule', async () => {
      const user = (await client.users.create({ applicationUserId: 'patch-user' })).data;
      await kit.fault({ method: 'PATCH', path: '/users/*', status: 503, count: 1 });
      const error = await fail(() =>
        client.users.update(user.uuid, [{ op: 'add', path: '/referenceId', value: 'r1' }] as never),
      );
      expect(error).toMatchObject({ status: 503 });
      await kit.fault({ method: 'PATCH', path: '/users/*', status: 503, count: 1 });
      const patched = await client.users.update(user.uuid, [
        { op: 'replace', path: '/referenceId', value: 'r2' },
      ]);
      expect(patched.data.referenceId).toBe('r2');
      expect(await kit.hits()).toEqual([1, 1]);

      const { id } = await kit.dataConsent();
      await kit.fault({ method: 'POST', path: '/consents/*/extend', status: 503, count: 2 });
      await fail(() => client.consents.extend(id, { lastConfirmedAt: new Date().toISOString() }));
      expect(await kit.hits()).toEqual([1, 1, 1]);
    });

    it('gives each page and each retry its own request id, starting with the caller’s', async () => {
      const server = await tinyServer((req, res, n) => {
        if (n === 2) {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end(json({ error: { code: 503, status: 'SERVICE_UNAVAILABLE', message: 'busy' } }));
          return;
        }
        const offset = Number(new URL(req.url!, 'http://x').searchParams.get('offset'));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          json({
            meta: { pagination: { totalCount: 15, self: { limit: 10, offset } } },
            data: Array.from({ length: offset === 0 ? 10 : 5 }, (_, i) => ({ id: `${offset + i}` })),
          }),
        );
      });
      const raw = clientFor(server.url);
      try {
        const pages = (
          await collect(
            raw.data.transactionPages(
              'acc',
              { limit: 10 },
              { consent: 'c', institutionId: 'tiny', requestId: 'rid' },
            ),
          )
        ).map((page) => page.requestId);
        expect(server.requests.map((r) => r.headers['x-request-id'])).toEqual(['rid', 'rid.p2', 'rid.p2.a2']);
        expect(pages).toEqual(['rid', 'rid.p2.a2']);
      } finally {
        await raw.close();
        await server.close();
      }
    });

    it('honours Retry-After given as an HTTP date', async () => {
      const server = await tinyServer((_req, res, n) => {
        if (n === 1) {
          res.writeHead(503, { 'retry-after': new Date(Date.now() + 2_000).toUTCString() });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(json({ meta: {}, data: [] }));
      });
      const raw = clientFor(server.url);
      try {
        const started = performance.now();
        expect((await raw.institutions.list()).status).toBe(200);
        // The date has whole seconds, so at least one of the two asked-for seconds remains.
        expect(performance.now() - started).toBeGreaterThanOrEqual(900);
        expect(server.requests).toHaveLength(2);
      } finally {
        await raw.close();
        await server.close();
      }
    });

    it('retries a POST whose first connection was refused', async () => {
      const free = await tinyServer((_req, res) => res.end());
      const port = Number(new URL(free.url).port);
      await free.close();
      const { client: observed, logs } = kit.observedClient({
        baseUrl: `http://127.0.0.1:${port}`,
        retry: { maxRetries: 3, initialDelayMs: 400, maxDelayMs: 800 },
        breaker: false,
      });
      const call = observed.consents.createAccountAuthorisation({
        institutionId: 'sandbox-redirect',
        applicationUserId: 'refused-once',
        accountRequest: accountRequest(),
      });
      // Once the first attempt has been refused, open the port for the retry.
      await eventually(
        'the first attempt refused',
        () => logs.text().includes('retrying') || undefined,
        WAIT.work,
        OFTEN_MS,
      );
      const late = net.createServer((socket) => {
        socket.once('data', () => {
          socket.end(
            'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 36\r\n\r\n' +
              '{"meta":{},"data":{"id":"created"}}\n',
          );
        });
      });
      await new Promise<void>((resolve) => late.listen(port, '127.0.0.1', resolve));
      try {
        expect((await call).data).toMatchObject({ id: 'created' });
      } finally {
        await new Promise((resolve) => late.close(resolve));
      }
    });

    it('a payment whose reply was lost is retried and paid once', async () => {
      let lost = 0;
      const proxy = await proxyTo(kit.sandbox.url, (method, url) => {
        if (method !== 'POST' || url !== '/payments' || lost > 0) return false;
        lost += 1;
        return true;
      });
      const viaProxy = clientFor(proxy.url, {
        applicationId: kit.config.upstream.applicationId,
        applicationSecret: kit.config.upstream.applicationSecret,
      });
      try {
        const request = paymentRequest('lost-reply-1', 3);
        const token = await kit.authorisedPayment(viaProxy, request);
        const on = { consent: token, institutionId: 'sandbox-payments' };
        const paid = await viaProxy.payments.create(request, on);
        expect(proxy.dropped).toEqual(['POST /payments']);
        const details = await viaProxy.payments.getDetails(paid.data.id, on);
        expect(details.data.payments).toHaveLength(1);
      } finally {
        await viaProxy.close();
        await proxy.close();
      }
    });

    it('a retried DELETE that finds the resource gone reports success', async () => {
      const proxy = await proxyTo(
        kit.sandbox.url,
        (method) => method === 'DELETE' && proxy.dropped.length === 0,
      );
      const viaProxy = clientFor(proxy.url, {
        applicationId: kit.config.upstream.applicationId,
        applicationSecret: kit.config.upstream.applicationSecret,
      });
      try {
        const user = (await viaProxy.users.create({ applicationUserId: 'lost-delete' })).data;
        const deleted = await viaProxy.users.delete(user.uuid);
        expect(proxy.dropped).toHaveLength(1);
        expect(deleted).toMatchObject({ status: 404, data: { id: user.uuid, deleteStatus: 'SUCCESS' } });
        expect(await fail(() => viaProxy.users.get(user.uuid))).toMatchObject({ kind: 'NOT_FOUND' });
      } finally {
        await viaProxy.close();
        await proxy.close();
      }
    });
  });

  describe('metrics', () => {
    it('records attempts apart from calls, and failure outcomes', async () => {
      const { client: observed, registry } = kit.observedClient();
      await kit.fault({ method: 'GET', path: '/institutions', status: 500, count: 1 });
      await observed.institutions.list();
      await fail(() => observed.consents.get('00000000-0000-4000-8000-00000000dead'));
      const metrics = await registry.getMetricsAsJSON();
      const count = (name: string) =>
        metrics
          .find((m) => m.name === name)!
          .values.filter((v) => (v as { metricName?: string }).metricName === `${name}_count`)
          .map((v) => ({ labels: v.labels, value: v.value }));
      expect(count('upstream_attempt_duration_seconds')).toEqual(
        expect.arrayContaining([
          { labels: { operation: 'getInstitutions', outcome: 'UNAVAILABLE' }, value: 1 },
          { labels: { operation: 'getInstitutions', outcome: 'success' }, value: 1 },
          { labels: { operation: 'getConsentById', outcome: 'NOT_FOUND' }, value: 1 },
        ]),
      );
      expect(count('upstream_request_duration_seconds')).toEqual(
        expect.arrayContaining([
          { labels: { operation: 'getInstitutions', outcome: 'success' }, value: 1 },
          { labels: { operation: 'getConsentById', outcome: 'NOT_FOUND' }, value: 1 },
        ]),
      );
    });
  });
});
