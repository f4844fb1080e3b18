import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  captureLogger,
  connect,
  eventually,
  onboard,
  type Tenant,
  uniqueName,
  useStack,
  WAIT,
} from './kit/index.js';

/**
 * One request context: the id a request arrives with (or a job's own) reaches, without any code passing
 * it along, the upstream calls made for it, and the outbox events its changes record.
 */
describe('request context: the request id reaches the upstream and the outbox', () => {
  const sandboxLogs = captureLogger('sandbox', 'info');
  const stack = useStack({
    ownDatabase: 'request_context',
    worker: true,
    loggers: { sandbox: sandboxLogs.logger },
  });
  let tenant: Tenant;
  let db: pg.Client;

  beforeAll(async () => {
    tenant = await onboard(stack);
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
  });

  const sandboxRequestIds = () =>
    sandboxLogs.lines
      .map((line) => JSON.parse(line) as { msg?: string; reqId?: string })
      .filter((line) => line.msg === 'request')
      .map((line) => line.reqId);

  it("sends a merchant request's x-request-id with the upstream calls made for it", async () => {
    const requestId = uniqueName('ctx-user');
    const created = await tenant.client.call('POST', '/v1/users', {
      body: { reference: uniqueName('ref') },
      headers: { 'x-request-id': requestId },
    });
    expect(created.status).toBe(201);
    expect(created.body.meta.tracingId).toBe(requestId);
    const seen = await eventually(
      'the upstream call in the sandbox log',
      () => {
        const ids = sandboxRequestIds().filter((id) => id?.startsWith(requestId));
        return ids.length > 0 ? ids : undefined;
      },
      10_000,
    );
    // The first attempt sends the id as is; a retry would add `.a<n>`.
    expect(seen[0]).toBe(requestId);
    // Two requests never share an id: another request's calls carry its own.
    expect(sandboxRequestIds().filter((id) => id?.startsWith(uniqueName('ctx-user')))).toEqual([]);
  });

  it('never takes a caller’s x-request-id shaped like a job’s: it makes its own', async () => {
    const answer = await tenant.client.call('GET', '/v1/me', {
      headers: { 'x-request-id': 'job:sync.account:42' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.meta.tracingId).not.toMatch(/^job:/);
    expect(answer.headers.get('x-request-id')).toBe(answer.body.meta.tracingId);
  });

  it('records the job that caused an event, and the request that caused one', async () => {
    const consentId = await connect(stack, tenant);
    // The first sync, a job of the worker, records its events under the job's own id.
    const jobEvent = await eventually(
      'a transactions.changed event of the first sync',
      async () => {
        const result = await db.query<{ request_id: string | null }>(
          `SELECT request_id FROM merchant_events WHERE merchant_id = $1 AND type::text = 'transactions.changed'
          LIMIT 1`,
          [tenant.merchant.merchant.id],
        );
        return result.rows[0];
      },
      WAIT.work,
    );
    expect(jobEvent.request_id).toMatch(/^job:sync\.account:/);
    // Every account's first sync over: a sync still calling the bank when the consent is revoked there
    // learns it first and records consent.revoked under its own job (the event names whoever changed the
    // consent first), and a loaded machine makes that overlap likely.
    await eventually(
      'every account of the consent synced, no sync queued or running',
      async () => {
        const result = await db.query<{ waiting: number; accounts: number }>(
          `SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM sync_runs r WHERE r.active_account_id = a.id)
                OR NOT EXISTS (SELECT 1 FROM sync_runs r WHERE r.account_id = a.id))::int AS waiting,
              count(*)::int AS accounts
            FROM accounts a WHERE a.consent_id = $1`,
          [consentId],
        );
        const [row] = result.rows;
        return row.accounts > 0 && row.waiting === 0 ? row : undefined;
      },
      WAIT.work,
    );

    const requestId = uniqueName('ctx-revoke');
    const revoked = await tenant.client.call('DELETE', `/v1/consents/${consentId}`, {
      headers: { 'x-request-id': requestId },
    });
    expect(revoked.status).toBe(204);
    const { rows } = await db.query<{ type: string; request_id: string | null }>(
      `SELECT type::text, request_id FROM merchant_events WHERE data->>'consentId' = $1 ORDER BY seq`,
      [consentId],
    );
    expect(rows.find((r) => r.type === 'consent.revoked')?.request_id).toBe(requestId);
  }, 120_000);
});
