import { beforeAll, describe, expect, it } from 'vitest';
import { type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { paymentRequest } from '../kit/sandbox-payments.js';
import { clientFor, failure, tinyServer, useUpstreamKit } from '../kit/upstream-test-kit.js';

const fail = (fn: () => Promise<unknown>) => failure<UpstreamError>(fn);

describe('upstream client: error shapes and classification', () => {
  const kit = useUpstreamKit();
  let client: UpstreamClient;

  beforeAll(() => {
    client = kit.client({ retry: { maxRetries: 0 } });
  });

  it('consent expired, revoked, invalid and missing: standard shape, the consent kinds', async () => {
    const expired = await kit.dataConsent('sandbox-redirect', 'err-1');
    await kit.admin.admin('POST', `/consents/${expired.id}/expire`);
    const e1 = await fail(() =>
      client.data.getAccounts({ consent: expired.token, institutionId: 'sandbox-redirect' }),
    );
    expect(e1).toBeInstanceOf(UpstreamError);
    expect(e1).toMatchObject({
      kind: 'CONSENT_EXPIRED',
      status: 403,
      shape: 'standard',
      retryable: false,
      code: 'CONSENT_EXPIRED',
    });
    expect(e1.tracingId).toEqual(expect.any(String));
    expect(e1.requestId).toEqual(expect.any(String));

    const revoked = await kit.dataConsent('sandbox-redirect', 'err-2');
    await kit.admin.admin('POST', `/consents/${revoked.id}/revoke`);
    expect(
      await fail(() =>
        client.data.getAccounts({ consent: revoked.token, institutionId: 'sandbox-redirect' }),
      ),
    ).toMatchObject({
      kind: 'CONSENT_REVOKED',
      status: 403,
    });

    expect(
      await fail(() =>
        client.data.getAccounts({ consent: 'not-a-token', institutionId: 'sandbox-redirect' }),
      ),
    ).toMatchObject({
      kind: 'CONSENT_INVALID',
      status: 401,
    });
    // An empty token is refused locally: nothing is sent.
    const empty = await fail(() =>
      client.data.getAccounts({ consent: '', institutionId: 'sandbox-redirect' }),
    );
    expect(empty).toMatchObject({ kind: 'CALLER', status: undefined });
  });

  it('a consumed payment consent is CONSENT_CONSUMED', async () => {
    const request = paymentRequest('consumed-1', 5);
    const token = await kit.authorisedPayment(client, request);
    await client.payments.create(request, { consent: token, institutionId: 'sandbox-redirect' });
    const error = await fail(() =>
      client.payments.create(
        { ...request, paymentIdempotencyId: 'consumed-2' },
        { consent: token, institutionId: 'sandbox-redirect' },
      ),
    );
    expect(error).toMatchObject({ kind: 'CONSENT_CONSUMED', status: 403 });
  });

  it('wrong credentials: minimal shape, AUTH (our fault)', async () => {
    const wrong = kit.client({ applicationSecret: 'wrong-secret', retry: { maxRetries: 0 } });
    const error = await fail(() => wrong.institutions.list());
    expect(error).toMatchObject({
      kind: 'AUTH',
      status: 401,
      shape: 'minimal',
      retryable: false,
      statusText: 'UNAUTHORIZED',
    });
    expect(error.message).not.toContain('wrong-secret');
  });

  it('a value that is not allowed: standard shape, CALLER, parameter named', async () => {
    const { token } = await kit.dataConsent();
    const accounts = await client.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' });
    const error = await fail(() =>
      client.data.getTransactions(
        accounts.data[0].id,
        { limit: 5000 },
        { consent: token, institutionId: 'sandbox-redirect' },
      ),
    );
    expect(error).toMatchObject({ kind: 'CALLER', status: 400, shape: 'standard' });
    expect(error.issues[0]).toMatchObject({
      type: 'INVALID_REQUEST',
      code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
      parameter: 'limit',
    });
  });

  it('field validation shape: CALLER with the field names', async () => {
    const { token } = await kit.dataConsent();
    const accounts = await client.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' });
    const error = await fail(() =>
      client.data.createCategorisation(accounts.data[0].id, {} as never, {
        consent: token,
        institutionId: 'sandbox-redirect',
      }),
    );
    expect(error).toMatchObject({ kind: 'CALLER', status: 400, shape: 'fieldValidation' });
    expect(error.fieldErrors).toEqual([
      { fieldName: 'categorisationType', error: 'MANDATORY' },
      { fieldName: 'countryCode', error: 'MANDATORY' },
    ]);
  });

  it('424 from the institution: INSTITUTION with institutionError and source', async () => {
    const { token } = await kit.dataConsent('sandbox-flaky', 'flaky-user');
    await client.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' }); // first of three: fine
    const e500 = await fail(() =>
      client.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' }),
    );
    expect(e500).toMatchObject({ kind: 'UNAVAILABLE', status: 500, retryable: true, shape: 'standard' });
    const e424 = await fail(() =>
      client.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' }),
    );
    expect(e424).toMatchObject({ kind: 'INSTITUTION', status: 424, retryable: true, source: 'INSTITUTION' });
    expect(e424.institutionError).toMatchObject({
      errorMessage: expect.any(String),
      httpStatusCode: expect.any(Number),
    });
  });

  it('403 feature not supported, 404 not found, 429 rate limited', async () => {
    const { token } = await kit.dataConsent('sandbox-payments', 'no-data');
    expect(
      await fail(() => client.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' })),
    ).toMatchObject({
      kind: 'FORBIDDEN',
      status: 403,
      code: 'FEATURE_NOT_SUPPORTED',
    });
    expect(await fail(() => client.consents.get('00000000-0000-4000-8000-00000000dead'))).toMatchObject({
      kind: 'NOT_FOUND',
      status: 404,
    });
    await kit.fault({ method: 'GET', path: '/institutions', status: 429, retryAfterSeconds: 7, count: 1 });
    expect(await fail(() => client.institutions.list())).toMatchObject({
      kind: 'RATE_LIMITED',
      status: 429,
      retryAfterMs: 7000,
      retryable: true,
    });
  });

  it('webhook endpoints: numeric issue codes', async () => {
    const error = await fail(() =>
      client.webhooks.register({
        applicationId: 'nope',
        categories: [],
        callbackUrl: { main: { url: 'x' } },
      }),
    );
    expect(error).toMatchObject({ kind: 'CALLER', status: 400 });
    expect(typeof error.code).toBe('number');
  });

  it('non-JSON and empty error bodies, unrecognised JSON, and a 2xx that is not JSON', async () => {
    const server = await tinyServer((req, res) => {
      if (req.url!.startsWith('/institutions/html')) {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body>502 Bad Gateway</body></html>');
      } else if (req.url!.startsWith('/institutions/empty')) {
        res.writeHead(503, { 'retry-after': '0' });
        res.end();
      } else if (req.url!.startsWith('/institutions/odd')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"message":"odd"}');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }
    });
    const raw = clientFor(server.url, { retry: { maxRetries: 0 } });
    try {
      expect(await fail(() => raw.institutions.get('html'))).toMatchObject({
        shape: 'nonJson',
        status: 502,
        kind: 'UNAVAILABLE',
        retryable: true,
      });
      expect(await fail(() => raw.institutions.get('empty'))).toMatchObject({
        shape: 'nonJson',
        status: 503,
        retryAfterMs: 0,
      });
      expect(await fail(() => raw.institutions.get('odd'))).toMatchObject({
        shape: 'unrecognised',
        status: 400,
        kind: 'CALLER',
      });
      expect(await fail(() => raw.institutions.get('plain'))).toMatchObject({
        kind: 'PROTOCOL',
        status: 200,
        retryable: false,
      });
      expect(await fail(() => raw.institutions.list())).toMatchObject({ kind: 'PROTOCOL' });
    } finally {
      await raw.close();
      await server.close();
    }
  });

  it('network errors: connection refused is UNAVAILABLE with shape network', async () => {
    const server = await tinyServer((_req, res) => res.end());
    const url = server.url;
    await server.close();
    const dead = clientFor(url, { retry: { maxRetries: 0 } });
    try {
      expect(await fail(() => dead.institutions.list())).toMatchObject({
        shape: 'network',
        kind: 'UNAVAILABLE',
        retryable: true,
        status: undefined,
      });
    } finally {
      await dead.close();
    }
  });

  it('never logs the consent token or the credentials, even while failing and retrying', async () => {
    const { client: observed, logs } = kit.observedClient({
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 },
    });
    const { token } = await kit.dataConsent();
    await kit.fault({ method: 'GET', path: '/accounts', status: 503, count: 2 });
    await observed.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' });
    await kit.fault({ method: 'GET', path: '/accounts', status: 500 });
    const error = await fail(() =>
      observed.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' }),
    );
    logs.logger.error({ err: error }, 'caller logs the error');
    const text = logs.text();
    expect(text).toContain('retrying');
    expect(text).not.toContain(token);
    expect(text).not.toContain(kit.config.upstream.applicationSecret);
    expect(text).not.toContain(
      Buffer.from(`${kit.config.upstream.applicationId}:${kit.config.upstream.applicationSecret}`).toString(
        'base64',
      ),
    );
    expect(JSON.stringify(error)).not.toContain(token);
  });
});
