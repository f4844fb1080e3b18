import { describe, expect, it } from 'vitest';
import { type SandboxEvent, SandboxEvents } from '../../apps/sandbox/src/core/index.js';
import { useSandbox } from '../kit/sandbox-fixture.js';

/** Conformance of what every sandbox route shares: authentication (upstream spec §5), error shapes (part 7), versioning, faults. */
describe('sandbox core', () => {
  const { sandbox, http, config } = useSandbox();

  describe('authentication', () => {
    it('answers missing credentials with 401 and issue code CREDENTIALS_MISSING in the standard shape', async () => {
      const response = await http.call('GET', '/institutions', { auth: 'none' });
      expect(response.status).toBe(401);
      expect(response.body.error).toMatchObject({
        code: 401,
        status: 'UNAUTHORIZED',
        source: 'YAPILY',
        issues: [expect.objectContaining({ type: 'CREDENTIALS', code: 'CREDENTIALS_MISSING' })],
      });
      expect(response.body.error.tracingId).toEqual(expect.any(String));
    });

    it('answers wrong or malformed credentials with 401 in the minimal shape', async () => {
      for (const headers of [
        { authorization: http.basic(config.upstream.applicationId, 'wrong-secret') },
        { authorization: 'Basic not-base64!' },
        { authorization: 'Bearer something' },
        { authorization: http.basic('unknown-app', 'x') },
      ]) {
        const response = await http.call('GET', '/institutions', { auth: 'none', headers });
        expect(response.status).toBe(401);
        expect(response.body).toEqual({
          error: { code: 401, status: 'UNAUTHORIZED', message: expect.any(String) },
        });
      }
    });

    it('accepts the seeded root and sub-application credentials', async () => {
      expect((await http.call('GET', '/institutions')).status).toBe(200);
      const sub = { id: '00000000-0000-4000-8000-0000000000a1', secret: 'sandbox-sub-secret-a' };
      expect((await http.call('GET', '/institutions', { auth: sub })).status).toBe(200);
    });

    it('refuses a sub-application header naming an application that is not the caller’s sub-application', async () => {
      const unknown = await http.call('GET', '/institutions', {
        subApplication: '00000000-0000-4000-8000-00000000ffff',
      });
      expect(unknown.status).toBe(403);
      const sub = { id: '00000000-0000-4000-8000-0000000000a1', secret: 'sandbox-sub-secret-a' };
      const sibling = await http.call('GET', '/institutions', {
        auth: sub,
        subApplication: '00000000-0000-4000-8000-0000000000a2',
      });
      expect(sibling.status).toBe(403);
      expect(sibling.body.error.issues[0].code).toBe('FORBIDDEN');
    });

    it('refuses an unknown API version with 400 naming the header', async () => {
      const response = await http.call('GET', '/institutions', {
        headers: { 'x-yapily-api-version': '9.9' },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.issues[0]).toMatchObject({
        type: 'INVALID_REQUEST',
        code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
        parameter: 'x-yapily-api-version',
      });
    });

    it('protects the control API with the admin bearer token', async () => {
      const none = await http.call('POST', '/sandbox/admin/reset', { auth: 'none' });
      expect(none.status).toBe(401);
      const basic = await http.call('POST', '/sandbox/admin/reset');
      expect(basic.status).toBe(401);
    });
  });

  describe('errors', () => {
    it('answers an unknown route with 404 in the standard shape', async () => {
      const response = await http.call('GET', '/no-such-route');
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND', source: 'YAPILY' });
    });

    it('answers malformed JSON with 400 BAD_REQUEST, never 500', async () => {
      const response = await http.call('POST', '/sandbox/admin/faults', {
        auth: 'none',
        headers: { authorization: `Bearer ${config.sandbox.adminToken}` },
        rawBody: '{"path": ',
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 400, status: 'BAD_REQUEST' });
    });

    it('names the offending property of an invalid body', async () => {
      const response = await http.admin('POST', '/faults', { path: '/x', status: 999 });
      expect(response.status).toBe(400);
      expect(response.body.error.issues).toEqual([
        expect.objectContaining({
          type: 'INVALID_REQUEST',
          code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
          parameter: 'status',
        }),
      ]);
    });
  });

  describe('fault injection', () => {
    it('answers matching requests with the injected status, then stops after `count`', async () => {
      const rule = await http.admin('POST', '/faults', {
        method: 'GET',
        path: '/institutions',
        status: 500,
        count: 2,
      });
      expect(rule.status).toBe(201);
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await http.call('GET', '/institutions')).status);
      expect(statuses).toEqual([500, 500, 200]);
      const listed = await http.admin('GET', '/faults');
      expect(listed.body.data[0]).toMatchObject({ id: rule.body.data.id, hits: 2, matched: 2 });
    });

    it('hits exactly the share of requests given by `rate`, deterministically', async () => {
      await http.admin('POST', '/faults', { path: '/institutions', status: 503, rate: 0.25 });
      const statuses = [];
      for (let i = 0; i < 8; i += 1) statuses.push((await http.call('GET', '/institutions')).status);
      expect(statuses).toEqual([200, 200, 200, 503, 200, 200, 200, 503]);
    });

    it('sends Retry-After with a 429 and the institution error shape with a 424', async () => {
      await http.admin('POST', '/faults', {
        path: '/institutions',
        status: 429,
        retryAfterSeconds: 7,
        count: 1,
      });
      const limited = await http.call('GET', '/institutions');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('7');

      await http.admin('POST', '/faults', { path: '/institutions/*', status: 424, count: 1 });
      const failed = await http.call('GET', '/institutions/sandbox-redirect');
      expect(failed.status).toBe(424);
      expect(failed.body.error).toMatchObject({
        code: 424,
        status: 'FAILED_DEPENDENCY',
        source: 'INSTITUTION',
        institutionError: { errorMessage: expect.any(String), httpStatusCode: expect.any(Number) },
      });
    });

    it('answers an injected 500 as the upstream does: INTERNAL_SERVER_ERROR, numbered 11000 on webhook routes', async () => {
      await http.admin('POST', '/faults', { path: '/**', status: 500, count: 2 });
      const plain = await http.call('GET', '/institutions');
      expect(plain.status).toBe(500);
      expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
      expect(plain.body.error).toMatchObject({
        code: 500,
        status: 'INTERNAL SERVER ERROR',
        issues: [expect.objectContaining({ type: 'INTERNAL_SERVER_ERROR', code: 'INTERNAL_SERVER_ERROR' })],
      });
      const webhook = await http.call('GET', '/webhook/events/categories');
      expect(webhook.status).toBe(500);
      expect(webhook.body.error.issues[0]).toMatchObject({ type: 'INTERNAL_SERVER_ERROR', code: 11000 });
    });

    it('drops the connection when asked', async () => {
      await http.admin('POST', '/faults', { path: '/institutions', drop: true, count: 1 });
      await expect(http.call('GET', '/institutions')).rejects.toThrow();
      expect((await http.call('GET', '/institutions')).status).toBe(200);
    });

    it('delays answers by latencyMs', async () => {
      await http.admin('POST', '/faults', { path: '/institutions', latencyMs: 150, count: 1 });
      const started = performance.now();
      expect((await http.call('GET', '/institutions')).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    });

    it('matches `**` and regular expressions, and is removed by id or cleared by reset', async () => {
      const rule = await http.admin('POST', '/faults', { path: '/accounts/**', status: 500 });
      expect((await http.call('GET', '/accounts/a/transactions')).status).toBe(500);
      expect((await http.admin('DELETE', `/faults/${rule.body.data.id}`)).status).toBe(204);
      expect((await http.call('GET', '/accounts/a/transactions')).status).not.toBe(500);

      await http.admin('POST', '/faults', { path: '/^\\/institutions$/', status: 500 });
      expect((await http.call('GET', '/institutions')).status).toBe(500);
      await http.admin('POST', '/reset');
      expect((await http.call('GET', '/institutions')).status).toBe(200);
    });

    it('refuses a rule that would do nothing', async () => {
      const response = await http.admin('POST', '/faults', { path: '/institutions' });
      expect(response.status).toBe(400);
    });
  });

  describe('consent status events', () => {
    it('announces authorised, revoked and expired consents once each, for their application', async () => {
      const events: SandboxEvent[] = [];
      sandbox.app.get(SandboxEvents).subscribe((event) => events.push(event));
      const created = await http.admin('POST', '/consents', {
        institutionId: 'sandbox-redirect',
        applicationUserId: 'events-user',
      });
      expect(created.status).toBe(201);
      const consentId = created.body.data.id as string;
      const other = await http.admin('POST', '/consents', {
        institutionId: 'sandbox-redirect',
        applicationUserId: 'events-user-2',
      });
      await http.admin('POST', `/consents/${consentId}/revoke`);
      await http.admin('POST', '/clock/advance', { days: 91 });
      // Expiry is noticed when the consent is next read; reading twice announces once.
      for (let i = 0; i < 2; i += 1) await http.call('GET', `/consents/${other.body.data.id}`);

      const ofInterest = events.filter((e) => e.type.startsWith('consent.state.'));
      expect(ofInterest.map((e) => [e.type, e.data.consentId])).toEqual([
        ['consent.state.authorized', consentId],
        ['consent.state.authorized', other.body.data.id],
        ['consent.state.revoked', consentId],
        ['consent.state.expired', other.body.data.id],
      ]);
      expect(new Set(ofInterest.map((e) => e.applicationId))).toEqual(
        new Set([config.upstream.applicationId]),
      );
    });
  });

  describe('clock and bank-side consent changes', () => {
    it('moves the sandbox clock forward and back to now on reset', async () => {
      const before = Date.parse((await http.admin('GET', '/clock')).body.data.now);
      const advanced = await http.admin('POST', '/clock/advance', { days: 2 });
      expect(Date.parse(advanced.body.data.now) - before).toBeGreaterThanOrEqual(2 * 86_400_000);
      await http.admin('POST', '/reset');
      expect((await http.admin('GET', '/clock')).body.data.offsetMs).toBe(0);
    });

    it('answers 404 for expiring or revoking an unknown consent', async () => {
      expect((await http.admin('POST', '/consents/00000000-0000-4000-8000-000000000000/expire')).status).toBe(
        404,
      );
      expect((await http.admin('POST', '/consents/00000000-0000-4000-8000-000000000000/revoke')).status).toBe(
        404,
      );
    });
  });
});
