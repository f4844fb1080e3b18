import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '#libs/config';
import { PrismaService } from '#libs/database';
import { captureLogger, createMerchant, uniqueName } from '#libs/testing';
import { startApi, startSandbox, type RunningHttpApp } from './support/running-apps.js';
import { SandboxHttp } from './support/sandbox-http.js';

type Api = RunningHttpApp & { config: AppConfig };
type ErrorBody = { error: { code: string; status: number; message: string } };

describe('api: a user the upstream no longer knows', () => {
  let sandbox: RunningHttpApp;
  let api: Api;
  let upstream: SandboxHttp;
  let prisma: PrismaService;
  const logs = captureLogger('api');

  const call = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    sandbox = await startSandbox();
    api = await startApi(sandbox.url, { LOG_LEVEL: 'warn' }, logs.logger);
    upstream = new SandboxHttp(sandbox.url, api.config);
    prisma = api.app.get(PrismaService);
  });
  afterAll(async () => {
    await api?.close();
    await sandbox?.close();
  });

  /** A user created through the api, then deleted on the upstream behind our back. */
  async function userGoneUpstream(key: string) {
    const created = await call(key, 'POST', '/v1/users', { reference: uniqueName('ref') });
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const row = await prisma.user.findUniqueOrThrow({ where: { id } });
    expect((await upstream.call('DELETE', `/users/${row.upstreamUserUuid}`)).status).toBeLessThan(300);
    return { id, upstreamUserUuid: row.upstreamUserUuid! };
  }

  it('PATCH answers a clear, non-retryable 409 CONFLICT, changes nothing, and the operator log names the user', async () => {
    const { apiKey } = await createMerchant(api);
    const user = await userGoneUpstream(apiKey.key);
    const reference = uniqueName('renamed');

    const response = await call(apiKey.key, 'PATCH', `/v1/users/${user.id}`, { reference });
    expect(response.status).toBe(409);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('CONFLICT');
    expect(body.error.message).toMatch(/upstream has no record of this user/i);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).reference).not.toBe(reference);

    const warning = logs.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.userId === user.id && entry.resource === 'user');
    expect(warning).toMatchObject({
      level: 'warn',
      upstreamUserUuid: user.upstreamUserUuid,
      upstreamStatus: 404,
    });
  });

  it('DELETE of such a user still completes: the upstream 404 means already gone', async () => {
    const { apiKey } = await createMerchant(api);
    const user = await userGoneUpstream(apiKey.key);
    expect((await call(apiKey.key, 'DELETE', `/v1/users/${user.id}`)).status).toBe(204);
    expect(await prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
  });
});
