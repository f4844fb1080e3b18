import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '#libs/config';
import { PrismaService } from '#libs/database';
import { ConsentTokenVault } from '#libs/domain/consents';
import { connectBank, type RunningHttpApp, uniqueName, useStack } from './kit/index.js';

type Api = RunningHttpApp & { config: AppConfig };

/**
 * "A secret shown once is stored nowhere else": every secret this suite makes through the real routes
 * (API keys, their idempotent replays, session tokens, consent tokens) is looked for in every column of
 * every table. Later secrets (webhook secrets) join `secrets` below. The stack has a database of its own:
 * every row of it is read, so it holds only what this suite made, not every other suite's transactions.
 */
describe('secrets at rest: no table holds a secret in plaintext', () => {
  const stack = useStack({ ownDatabase: 'secrets_at_rest' });
  let sandbox: RunningHttpApp;
  let api: Api;
  let db: pg.Client;
  const secrets: { kind: string; value: string }[] = [];

  beforeAll(async () => {
    ({ sandbox, api } = stack);
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
  });

  it('an idempotent replay of key rotation answers the key record without the key', async () => {
    const admin = api.config.api.adminToken;
    const created = await stack.anonymous.as(admin).post('/admin/merchants', { name: uniqueName('secrets') });
    expect(created.status).toBe(201);
    secrets.push({ kind: 'first API key', value: created.body.data.apiKey.key });

    const path = `/admin/merchants/${created.body.data.merchant.id}/api-keys`;
    const headers = { 'idempotency-key': uniqueName('rotate') };
    const first = await stack.anonymous.as(admin).post(path, { name: 'second' }, { headers });
    expect(first.status).toBe(201);
    expect(first.body.data.key).toEqual(expect.any(String));
    secrets.push({ kind: 'rotated API key', value: first.body.data.key });

    const replay = await stack.anonymous.as(admin).post(path, { name: 'second' }, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual({ ...first.body.data, key: undefined });
    expect(JSON.stringify(replay.body)).not.toContain(first.body.data.key);

    // The rotated key works: it was really minted, only not stored.
    const me = await stack.anonymous.as(first.body.data.key).get('/v1/me');
    expect(me.status).toBe(200);

    const user = await stack.anonymous
      .as(first.body.data.key)
      .post('/v1/users', { reference: uniqueName('user') });
    expect(user.status).toBe(201);
    const session = await stack.anonymous
      .as(first.body.data.key)
      .post(`/v1/users/${user.body.data.id}/sessions`, {});
    expect(session.status).toBe(201);
    secrets.push({ kind: 'session token', value: session.body.data.token });

    const consentId = await connectBank(
      { apiUrl: api.url, sandboxUrl: sandbox.url },
      first.body.data.key,
      user.body.data.id,
    );
    const row = await api.app.get(PrismaService).consent.findUniqueOrThrow({ where: { id: consentId } });
    const token = api.app.get(ConsentTokenVault).open(row, consentId);
    expect(token).toEqual(expect.any(String));
    secrets.push({ kind: 'consent token', value: token! });
  });

  it('finds none of them in any column of any table', async () => {
    expect(secrets.map((s) => s.kind)).toEqual([
      'first API key',
      'rotated API key',
      'session token',
      'consent token',
    ]);
    const { rows: tables } = await db.query<{ name: string }>(
      `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name
         FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    expect(tables.length).toBeGreaterThan(10);
    // One read of each table for all the secrets together.
    const found: string[] = [];
    const params = secrets.map((s) => s.value);
    const counts = secrets.map((_, i) => `count(*) FILTER (WHERE strpos(t::text, $${i + 1}) > 0)::int`);
    for (const { name } of tables) {
      const { rows } = await db.query<{ n: number[] }>(
        `SELECT ARRAY[${counts.join(', ')}] AS n FROM ${name} t`,
        params,
      );
      rows[0].n.forEach((n, i) => {
        if (n > 0) found.push(`${secrets[i].kind} in ${name}`);
      });
    }
    expect(found).toEqual([]);
  });
});
