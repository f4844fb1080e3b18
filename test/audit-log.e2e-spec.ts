import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditAction, AuditTrailService } from '#libs/domain/audit';
import {
  ApiClient,
  assertProperty,
  dataOf,
  onboard,
  type Tenant,
  uniqueName,
  useStack,
} from './kit/index.js';

interface Entry {
  id: string;
  occurredAt: string;
  actor: { kind: string; apiKeyId: string | null };
  action: string;
  merchantId: string | null;
  merchantName: string | null;
  resource: { type: string; id: string | null };
  fields: string[];
  sourceIp: string | null;
  tracingId: string;
}

/**
 * The audit log of administrative actions: what each entry says, who may read which, that nothing but the
 * retention sweep removes an entry, and a merchant's own keys (never its last one). That every action of
 * the API is recorded, and nothing secret, is the OpenAPI walk's (api-openapi-conformance.e2e-spec.ts).
 */
describe('audit log', () => {
  // The operator's list reads every entry of its database: this file has its own.
  const stack = useStack({ ownDatabase: 'audit' });
  let db: pg.Client;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
  });

  /** Every entry a client may read at `path`, newest first, paged `limit` at a time. */
  async function readAll(client: ApiClient, path: string, limit = 100): Promise<Entry[]> {
    const entries: Entry[] = [];
    for (let next = `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`; ;) {
      const page = await client.get(next);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      entries.push(...(page.body.data as Entry[]));
      if (!page.body.links?.next) return entries;
      next = page.body.links.next as string;
    }
  }

  const byTracingId = (entries: Entry[], tracingId: string) =>
    entries.filter((e) => e.tracingId === tracingId);

  it('says who did what to which resource, when, from where, under which tracing id; never a value set', async () => {
    const tenant = await onboard(stack);
    const merchantId = tenant.merchant.merchant.id;
    const before = Date.now();
    const disabling = uniqueName('audit-disable');
    await stack.operator.post(`/admin/merchants/${merchantId}/disable`, undefined, {
      headers: { 'x-request-id': disabling },
    });
    await stack.operator.post(`/admin/merchants/${merchantId}/enable`);
    const origin = `https://${uniqueName('shop')}.example`;
    const changing = uniqueName('audit-origins');
    const changed = await tenant.client.patch(
      '/v1/merchant',
      { frontendOrigins: [origin] },
      { headers: { 'x-request-id': changing } },
    );
    expect(dataOf(changed).frontendOrigins).toEqual([origin]);

    const all = await readAll(stack.operator, `/admin/audit?merchantId=${merchantId}`);
    const [disabled] = byTracingId(all, disabling);
    expect(disabled).toMatchObject({
      actor: { kind: 'operator', apiKeyId: null },
      action: AuditAction.MerchantDisable,
      merchantId,
      merchantName: tenant.merchant.merchant.name,
      resource: { type: 'merchant', id: merchantId },
      fields: [],
      sourceIp: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/),
    });
    expect(Date.parse(disabled.occurredAt)).toBeGreaterThanOrEqual(before - 1_000);
    const [originsChanged] = byTracingId(all, changing);
    expect(originsChanged).toMatchObject({
      actor: { kind: 'merchant', apiKeyId: tenant.merchant.apiKey.id },
      action: AuditAction.MerchantUpdate,
      merchantId,
      resource: { type: 'merchant', id: merchantId },
      fields: ['frontendOrigins'],
    });
    expect(JSON.stringify(all)).not.toContain(origin);
    // Newest first: the merchant's change came after the operator's two.
    expect(all.map((e) => e.action).slice(0, 3)).toEqual([
      AuditAction.MerchantUpdate,
      AuditAction.MerchantEnable,
      AuditAction.MerchantDisable,
    ]);

    // A refused change records nothing.
    const refused = uniqueName('audit-refused');
    const bad = await tenant.client.patch(
      '/v1/merchant',
      { frontendOrigins: ['not an origin'] },
      { headers: { 'x-request-id': refused } },
    );
    expect(bad.status).toBe(400);
    expect(byTracingId(await readAll(stack.operator, '/admin/audit'), refused)).toEqual([]);
  });

  it("shows a merchant what was done to its integration, by its keys or the operator, and nothing of another's", async () => {
    const [ours, theirs] = [await onboard(stack), await onboard(stack)];
    await stack.operator.post(`/admin/merchants/${ours.merchant.merchant.id}/api-keys`, {
      name: 'by operator',
    });
    await ours.client.post('/v1/merchant/api-keys', { name: 'by us' });
    await theirs.client.post('/v1/merchant/api-keys', { name: 'by them' });

    const seen = await readAll(ours.client, '/v1/merchant/audit', 1);
    expect(seen.map((e) => [e.action, e.actor.kind])).toEqual([
      [AuditAction.ApiKeyIssue, 'merchant'],
      [AuditAction.ApiKeyIssue, 'operator'],
      [AuditAction.MerchantCreate, 'operator'],
    ]);
    expect(seen.every((e) => e.merchantId === ours.merchant.merchant.id)).toBe(true);
    // The operator's address is the platform's: a merchant sees its own keys' addresses only.
    expect(seen.map((e) => e.sourceIp === null)).toEqual([false, true, true]);
    const asOperator = await readAll(stack.operator, `/admin/audit?merchantId=${ours.merchant.merchant.id}`);
    expect(asOperator.every((e) => typeof e.sourceIp === 'string')).toBe(true);
    const onlyCreate = await readAll(ours.client, `/v1/merchant/audit?action=${AuditAction.MerchantCreate}`);
    expect(onlyCreate.map((e) => e.action)).toEqual([AuditAction.MerchantCreate]);
    // Operator-only filters are not the merchant's: an unknown query field is refused, not ignored.
    const other = await ours.client.get(`/v1/merchant/audit?merchantId=${theirs.merchant.merchant.id}`);
    expect(other.status).toBe(400);
    const unknownAction = await ours.client.get('/v1/merchant/audit?action=merchant.delete');
    expect(unknownAction.status).toBe(400);
    expect(unknownAction.body.error.message).toContain('action must be one of');
    // A session is a browser's, not the merchant's back office.
    const session = dataOf(await ours.client.post(`/v1/users/${ours.userId}/sessions`), 201);
    expect((await ours.client.get('/v1/merchant/audit', { token: session.token })).status).toBe(403);
  });

  it('pages newest first through any number of entries, each once, filtered by merchant and action', async () => {
    const trail = stack.api.app.get(AuditTrailService);
    await assertProperty(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 1, max: 10 }),
        async (count, limit) => {
          const tenant = await onboard(stack);
          const merchantId = tenant.merchant.merchant.id;
          const recorded: string[] = [];
          for (let i = 0; i < count; i += 1) {
            const tracingId = uniqueName('paged');
            recorded.push(tracingId);
            await trail.record({
              actor: { kind: 'merchant', merchantId, apiKeyId: tenant.merchant.apiKey.id },
              action: i % 2 ? AuditAction.ApiKeyIssue : AuditAction.EventEndpointCreate,
              merchantId,
              resourceType: 'api-key',
              resourceId: null,
              fields: [],
              sourceIp: '127.0.0.1',
              tracingId,
            });
          }
          const paged = await readAll(
            stack.operator,
            `/admin/audit?merchantId=${merchantId}&action=${AuditAction.ApiKeyIssue}`,
            limit,
          );
          expect(paged.map((e) => e.tracingId)).toEqual(recorded.filter((_, i) => i % 2).reverse());
          const mine = await readAll(tenant.client, '/v1/merchant/audit', limit);
          // The operator's on-boarding is the oldest.
          expect(mine.map((e) => e.tracingId).slice(0, count)).toEqual([...recorded].reverse());
          expect(mine).toHaveLength(count + 1);
        },
      ),
      12,
    );
  });

  it('is append-only: no entry changes, and only the retention sweep removes those past AUDIT_RETENTION_DAYS', async () => {
    const tenant = await onboard(stack);
    const merchantId = tenant.merchant.merchant.id;
    await expect(
      db.query(`UPDATE audit_entries SET action = 'x' WHERE merchant_id = $1`, [merchantId]),
    ).rejects.toThrow(/append-only/);
    await expect(db.query('DELETE FROM audit_entries WHERE merchant_id = $1', [merchantId])).rejects.toThrow(
      /append-only/,
    );
    const days = stack.api.config.retention.auditDays;
    const old = uniqueName('old');
    const kept = uniqueName('kept');
    for (const [tracingId, ageDays] of [
      [old, days + 1],
      [kept, days - 1],
    ] as const) {
      await db.query(
        `INSERT INTO audit_entries (id, occurred_at, actor_kind, merchant_id, action, resource_type, source_ip, tracing_id)
          VALUES (uuid_generate_v7(), now() - make_interval(days => $1), 'operator', $2, 'merchant.update', 'merchant', '127.0.0.1', $3)`,
        [ageDays, merchantId, tracingId],
      );
    }
    const { audit } = await stack.api.app.get(AuditTrailService).prune();
    expect(audit).toBeGreaterThanOrEqual(1);
    const left = await readAll(stack.operator, `/admin/audit?merchantId=${merchantId}`);
    expect(byTracingId(left, old)).toEqual([]);
    expect(byTracingId(left, kept)).toHaveLength(1);
    expect(left.some((e) => e.action === AuditAction.MerchantCreate)).toBe(true);
  });

  describe("a merchant's own keys", () => {
    const keyClient = (tenant: Tenant, key: string) => tenant.client.as(key);

    it('issues and revokes its own keys, the calling one too, but never its last working key', async () => {
      const tenant = await onboard(stack);
      const first = tenant.merchant.apiKey;
      const alone = await tenant.client.delete(`/v1/merchant/api-keys/${first.id}`);
      expect(alone.status).toBe(409);
      expect(alone.body.error.message).toContain('last working API key');
      expect((await tenant.client.get('/v1/merchant')).status).toBe(200);

      const second = dataOf(await tenant.client.post('/v1/merchant/api-keys', { name: 'next' }), 201);
      expect(second.key).toMatch(/^mk_/);
      const listed = dataOf(await keyClient(tenant, second.key).get('/v1/merchant/api-keys'));
      expect(listed.map((k: { id: string }) => k.id).sort()).toEqual([first.id, second.id].sort());
      expect(JSON.stringify(listed)).not.toContain(second.key);
      // The first key revokes itself: refused from then on, on this process at once.
      expect((await tenant.client.delete(`/v1/merchant/api-keys/${first.id}`)).status).toBe(204);
      expect((await tenant.client.get('/v1/merchant')).status).toBe(401);
      const now = keyClient(tenant, second.key);
      expect((await now.delete(`/v1/merchant/api-keys/${second.id}`)).status).toBe(409);
      // Another merchant's key is not ours to revoke: it does not exist, as far as we can tell.
      const other = await onboard(stack);
      expect((await now.delete(`/v1/merchant/api-keys/${other.merchant.apiKey.id}`)).status).toBe(404);
      expect((await other.client.get('/v1/merchant')).status).toBe(200);
    });

    it('keeps one working key however many revocations race', async () => {
      await assertProperty(
        fc.asyncProperty(fc.integer({ min: 2, max: 5 }), async (count) => {
          const tenant = await onboard(stack);
          const keys = [tenant.merchant.apiKey];
          for (let i = 1; i < count; i += 1) {
            keys.push(dataOf(await tenant.client.post('/v1/merchant/api-keys', {}), 201));
          }
          // Each key revokes itself, all at once.
          const answers = await Promise.all(
            keys.map((k) => keyClient(tenant, k.key).delete(`/v1/merchant/api-keys/${k.id}`)),
          );
          const statuses = answers.map((a) => a.status).sort();
          expect(statuses).toEqual([...Array(count - 1).fill(204), 409]);
          const working = await Promise.all(keys.map((k) => keyClient(tenant, k.key).get('/v1/merchant')));
          expect(working.filter((w) => w.status === 200)).toHaveLength(1);
        }),
        6,
      );
    });
  });
});
