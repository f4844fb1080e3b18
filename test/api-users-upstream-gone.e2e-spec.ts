import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  captureLogger,
  createMerchant,
  type Envelope,
  type ErrorBody,
  SandboxHttp,
  type Stack,
  uniqueName,
  useStack,
} from './kit/index.js';

describe('api: a user the upstream no longer knows', () => {
  const logs = captureLogger('api');
  const stack = useStack({ overrides: { LOG_LEVEL: 'warn' }, loggers: { api: logs.logger } });
  let api: Stack['api'];
  let upstream: SandboxHttp;
  let prisma: PrismaService;

  beforeAll(() => {
    api = stack.api;
    upstream = new SandboxHttp(stack.sandbox.url, api.config);
    prisma = api.app.get(PrismaService);
  });

  /** A user created through the api, then deleted on the upstream behind our back. */
  async function userGoneUpstream(key: string) {
    const created = await stack.anonymous.as(key).post('/v1/users', { reference: uniqueName('ref') });
    expect(created.status).toBe(201);
    const { id } = (created.body as Envelope<{ id: string }>).data;
    const row = await prisma.user.findUniqueOrThrow({ where: { id } });
    expect((await upstream.call('DELETE', `/users/${row.upstreamUserUuid}`)).status).toBeLessThan(300);
    return { id, upstreamUserUuid: row.upstreamUserUuid! };
  }

  it('PATCH answers a clear, non-retryable 409 CONFLICT, changes nothing, and the operator log names the user', async () => {
    const { apiKey } = await createMerchant(api);
    const user = await userGoneUpstream(apiKey.key);
    const reference = uniqueName('renamed');

    const response = await stack.anonymous.as(apiKey.key).patch(`/v1/users/${user.id}`, { reference });
    expect(response.status).toBe(409);
    const body = response.body as ErrorBody;
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
    expect((await stack.anonymous.as(apiKey.key).delete(`/v1/users/${user.id}`)).status).toBe(204);
    expect(await prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
  });
});
