import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '#libs/crypto';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import { QueueName } from '#libs/queue';
import {
  captureLogger,
  configSecrets,
  type CreatedMerchant,
  createMerchant,
  createUser,
  dataOf,
  decideAtBank,
  type Envelope,
  type ErrorBody,
  eventually,
  SandboxHttp,
  send,
  sessionToken,
  type Stack,
  uniqueQueuePrefix,
  useStack,
  WAIT,
} from './kit/index.js';

const REDIRECT = 'https://app.merchant.example/banks/done';
const REDIRECT_AGAIN = 'https://app.merchant.example/banks/reconnected';
const PASSWORD = 'secret';
const CODE = '123456';

describe('api: embedded flow (worker poll), re-authorisation and pre-authorisation update', () => {
  const prefix = uniqueQueuePrefix('consents-embedded');
  const apiLogs = captureLogger('api');
  const workerLogs = captureLogger('worker');
  const tokens: string[] = [];
  /** Merchant API keys and session tokens this file sends: none may reach the logs. */
  const credentials: string[] = [];
  const session = (subject: { merchantId: string; userId: string }) => {
    const token = sessionToken(api.config, subject);
    credentials.push(token);
    return token;
  };
  const stack = useStack({
    worker: true,
    overrides: { LOG_LEVEL: 'trace', QUEUE_PREFIX: prefix },
    loggers: { api: apiLogs.logger, worker: workerLogs.logger },
  });
  let api: Stack['api'];
  let sandbox: Stack['sandbox'];
  let worker: NonNullable<Stack['worker']>;
  let prisma: PrismaService;
  let box: SecretBox;
  let owner: CreatedMerchant;
  let other: CreatedMerchant;
  let userId: string;
  let otherUserId: string;

  /** Acts as the browser: approves at the sandbox bank, follows to our callback, answers where it sends us. */
  async function approveAtBank(authorisationUrl: string): Promise<URL> {
    const back = await decideAtBank({ apiUrl: api.url, sandboxUrl: sandbox.url }, authorisationUrl);
    expect(back.status).toBe(302);
    // A second use of the same return exchanges nothing again: back to the merchant with the same outcome.
    const again = await send(back.callback, 'GET');
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).searchParams.get('status')).toBe(
      back.location.searchParams.get('status'),
    );
    return back.location;
  }

  async function connectedByRedirect() {
    const created = dataOf<{ id: string; authorisationUrl: string }>(
      await stack.anonymous.as(owner.apiKey.key).post(`/v1/users/${userId}/consents`, {
        institutionId: 'sandbox-redirect',
        redirectUrl: REDIRECT,
      }),
      201,
    );
    const back = await approveAtBank(created.authorisationUrl);
    expect(back.searchParams.get('status')).toBe('AUTHORIZED');
    return created.id;
  }

  async function storedToken(consentId: string) {
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    const token = box.open({ keyId: row.tokenKeyId!, ciphertext: row.tokenCiphertext! }, row.id);
    tokens.push(token);
    return { row, token };
  }

  async function startEmbedded(token = owner.apiKey.key, user = userId) {
    return dataOf<{ id: string; status: string; scaMethods?: { id: string; type: string }[] }>(
      await stack.anonymous.as(token).post(`/v1/users/${user}/consents/embedded`, {
        institutionId: 'sandbox-embedded',
        credentials: { id: 'psu-1', password: PASSWORD },
      }),
      201,
    );
  }

  const statusOf = async (consentId: string) =>
    dataOf<{ status: string }>(
      await stack.anonymous.as(owner.apiKey.key).get(`/v1/consents/${consentId}`),
      200,
    ).status;

  beforeAll(async () => {
    ({ api, sandbox } = stack);
    worker = stack.worker!;
    prisma = api.app.get(PrismaService);
    box = new SecretBox(api.config.crypto.encryptionKeys);
    owner = await createMerchant(api);
    other = await createMerchant(api);
    credentials.push(owner.apiKey.key, other.apiKey.key);
    const users = api.app.get(UserRepository);
    userId = (await createUser(users, owner.merchant.id)).id;
    otherUserId = (await createUser(users, owner.merchant.id)).id;
  });
  afterAll(async () => {
    await worker?.app.get<Queue>(getQueueToken(QueueName.Consents)).obliterate({ force: true });
  });

  it('connects a bank by the embedded flow: method, code, then the worker polls it to AUTHORIZED', async () => {
    const userSession = session({ merchantId: owner.merchant.id, userId });
    const wrongPassword = await stack.anonymous
      .as(userSession)
      .post(`/v1/users/${userId}/consents/embedded`, {
        institutionId: 'sandbox-embedded',
        credentials: { id: 'psu-1', password: 'not-the-password' },
      });
    expect(wrongPassword.status).toBe(400);
    expect((wrongPassword.body as ErrorBody).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
    });

    const started = await startEmbedded(userSession);
    expect(started.status).toBe('AWAITING_SCA_METHOD');
    expect(started.scaMethods?.map((m) => m.id)).toEqual(['sbx-sms-otp', 'sbx-push-otp']);

    const early = await stack.anonymous
      .as(userSession)
      .post(`/v1/consents/${started.id}/sca-code`, { code: CODE });
    expect(early.status).toBe(409);
    expect((early.body as ErrorBody).error.code).toBe('CONFLICT');

    const method = dataOf<{ status: string }>(
      await stack.anonymous.as(userSession).post(`/v1/consents/${started.id}/sca-method`, {
        scaMethodId: 'sbx-sms-otp',
      }),
      200,
    );
    expect(method.status).toBe('AWAITING_SCA_CODE');

    const wrongCode = await stack.anonymous.as(userSession).post(`/v1/consents/${started.id}/sca-code`, {
      code: '000000',
    });
    expect(wrongCode.status).toBe(400);
    expect((wrongCode.body as ErrorBody).error.code).toBe('VALIDATION_FAILED');
    expect(await statusOf(started.id)).toBe('AWAITING_SCA_CODE');

    const accepted = dataOf<{ status: string }>(
      await stack.anonymous.as(userSession).post(`/v1/consents/${started.id}/sca-code`, { code: CODE }),
      202,
    );
    expect(accepted.status).toBe('AWAITING_AUTHORIZATION');

    await eventually(
      'the consent authorised',
      async () => {
        expect(await statusOf(started.id)).toBe('AUTHORIZED');
        return true;
      },
      WAIT.work,
    );

    const { row, token } = await storedToken(started.id);
    expect(row).toMatchObject({ flow: 'EMBEDDED', status: 'AUTHORIZED', kind: 'ACCOUNT' });
    expect(token.split('.')).toHaveLength(3);
    const accounts = await prisma.account.findMany({ where: { consentId: started.id } });
    expect(accounts).toHaveLength(3);
    expect(accounts.every((a) => a.merchantId === owner.merchant.id && a.userId === userId)).toBe(true);

    // A second run of the poll (a duplicate or retried job) leaves the authorised consent as it is.
    const queue = worker.app.get<Queue>(getQueueToken(QueueName.Consents));
    // The job records its result after its transaction commits: polled, as the status was.
    await eventually(
      'the embedded poll job answering authorised',
      async () => {
        expect((await queue.getJob(`consents.poll-embedded.${started.id}`))?.returnvalue).toEqual({
          status: 'AUTHORIZED',
        });
        return true;
      },
      WAIT.work,
    );
  });

  it('honours Idempotency-Key on the embedded create without keeping anything of the credentials', async () => {
    const create = (password: string) =>
      stack.anonymous
        .as(owner.apiKey.key)
        .post(
          `/v1/users/${userId}/consents/embedded`,
          { institutionId: 'sandbox-embedded', credentials: { id: 'psu-1', password } },
          { headers: { 'idempotency-key': 'embedded-once' } },
        );
    const first = await create(PASSWORD);
    expect(first.status).toBe(201);
    const firstBody = first.body as Envelope<{ id: string }>;
    // A retry after a lost answer (even with the password retyped differently) returns the first consent.
    const replay = await create(`${PASSWORD}-retyped`);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((replay.body as Envelope<{ id: string }>).data.id).toBe(firstBody.data.id);
    const stored = await prisma.idempotencyKey.findFirstOrThrow({
      where: { merchantId: owner.merchant.id, key: 'embedded-once' },
    });
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
  });

  it('fails the consent after three wrong codes and says so on GET', async () => {
    const started = await startEmbedded();
    dataOf(
      await stack.anonymous.as(owner.apiKey.key).post(`/v1/consents/${started.id}/sca-method`, {
        scaMethodId: 'sbx-push-otp',
      }),
      200,
    );
    for (let i = 0; i < 3; i++) {
      const wrong = await stack.anonymous.as(owner.apiKey.key).post(`/v1/consents/${started.id}/sca-code`, {
        code: '999999',
      });
      expect(wrong.status).toBe(400);
    }
    expect(await statusOf(started.id)).toBe('FAILED');
    const late = await stack.anonymous
      .as(owner.apiKey.key)
      .post(`/v1/consents/${started.id}/sca-code`, { code: CODE });
    expect(late.status).toBe(409);
  });

  it('re-authorises a consent through the bank page: new token and expiry, reauthorisationUrl while pending', async () => {
    const consentId = await connectedByRedirect();
    const before = await storedToken(consentId);

    const asked = dataOf<{ status: string; authorisationUrl: string }>(
      await stack.anonymous.as(owner.apiKey.key).post(`/v1/consents/${consentId}/reauthorise`, {
        redirectUrl: REDIRECT_AGAIN,
      }),
      201,
    );
    expect(asked.status).toBe('AWAITING_RE_AUTHORIZATION');
    const pending = dataOf<{ status: string; reauthorisationUrl?: string }>(
      await stack.anonymous.as(owner.apiKey.key).get(`/v1/consents/${consentId}`),
      200,
    );
    expect(pending).toMatchObject({
      status: 'AWAITING_RE_AUTHORIZATION',
      reauthorisationUrl: asked.authorisationUrl,
    });

    const back = await approveAtBank(asked.authorisationUrl);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_AGAIN);
    expect(back.searchParams.get('consentId')).toBe(consentId);
    expect(back.searchParams.get('status')).toBe('AUTHORIZED');

    const after = await storedToken(consentId);
    expect(after.token).not.toBe(before.token);
    expect(after.row.status).toBe('AUTHORIZED');
    expect(after.row.reauthorisationUrl).toBeNull();
    expect(after.row.authorizedAt!.getTime()).toBeGreaterThanOrEqual(before.row.authorizedAt!.getTime());
    expect(after.row.expiresAt!.getTime()).toBeGreaterThanOrEqual(before.row.expiresAt!.getTime());
    const view = dataOf<Record<string, unknown>>(
      await stack.anonymous.as(owner.apiKey.key).get(`/v1/consents/${consentId}`),
      200,
    );
    expect(view.status).toBe('AUTHORIZED');
    expect(view).not.toHaveProperty('reauthorisationUrl');

    // The upstream now refuses the superseded token and takes the new one.
    const upstream = new SandboxHttp(sandbox.url, api.config);
    const application = {
      id: api.config.upstream.applicationId,
      secret: api.config.upstream.applicationSecret,
    };
    const accountsWith = (token: string) =>
      upstream.call('GET', '/accounts', { auth: application, consent: token });
    expect((await accountsWith(before.token)).status).toBe(401);
    expect((await accountsWith(after.token)).status).toBe(200);
  });

  it('updates the terms of a consent (pre-authorisation) and completes it through the callback', async () => {
    const consentId = await connectedByRedirect();
    const updated = dataOf<{ status: string; featureScope: string[]; authorisationUrl: string }>(
      await stack.anonymous.as(owner.apiKey.key).call('PUT', `/v1/consents/${consentId}/pre-authorisation`, {
        body: {
          scopes: ['ACCOUNTS', 'ACCOUNT_BALANCES'],
        },
      }),
      200,
    );
    expect(updated.status).toBe('AWAITING_AUTHORIZATION');
    expect(updated.featureScope).toEqual(['ACCOUNTS', 'ACCOUNT_BALANCES']);
    const back = await approveAtBank(updated.authorisationUrl);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('status')).toBe('AUTHORIZED');
    const { row } = await storedToken(consentId);
    expect(row.status).toBe('AUTHORIZED');
    expect(row.featureScope).toEqual(['ACCOUNTS', 'ACCOUNT_BALANCES']);

    const embedded = await startEmbedded();
    const refused = await stack.anonymous
      .as(owner.apiKey.key)
      .call('PUT', `/v1/consents/${embedded.id}/pre-authorisation`, {
        body: {
          scopes: ['ACCOUNTS'],
        },
      });
    expect(refused.status).toBe(409);
  });

  it('answers 404 on every new route for another merchant’s key or another user’s session', async () => {
    const consentId = await connectedByRedirect();
    const embedded = await startEmbedded();
    const strangers = [other.apiKey.key, session({ merchantId: owner.merchant.id, userId: otherUserId })];
    const routes: [string, string, unknown][] = [
      [
        'POST',
        `/v1/users/${userId}/consents/embedded`,
        { institutionId: 'sandbox-embedded', credentials: { id: 'psu-1', password: PASSWORD } },
      ],
      ['POST', `/v1/consents/${embedded.id}/sca-method`, { scaMethodId: 'sbx-sms-otp' }],
      ['POST', `/v1/consents/${embedded.id}/sca-code`, { code: CODE }],
      ['POST', `/v1/consents/${consentId}/reauthorise`, { redirectUrl: REDIRECT }],
      ['PUT', `/v1/consents/${consentId}/pre-authorisation`, { scopes: ['ACCOUNTS'] }],
    ];
    for (const token of strangers) {
      for (const [method, path, body] of routes) {
        const response = await stack.anonymous.as(token).call(method, path, { body });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect((response.body as ErrorBody).error.code).toBe('NOT_FOUND');
      }
    }
    expect(await statusOf(embedded.id)).toBe('AWAITING_SCA_METHOD');
    expect(await statusOf(consentId)).toBe('AUTHORIZED');
  });

  it('refuses malformed JSON, wrong types and unknown fields on every new route with 400', async () => {
    const id = '00000000-0000-7000-8000-000000000000';
    const embedded = `/v1/users/${userId}/consents/embedded`;
    const good = { institutionId: 'sandbox-embedded', credentials: { id: 'psu-1', password: PASSWORD } };
    const cases: [string, string, unknown, string?][] = [
      ['POST', embedded, '{"institutionId": ', undefined],
      ['POST', embedded, { ...good, credentials: 'psu-1:secret' }, 'credentials'],
      ['POST', embedded, { ...good, credentials: { id: 'psu-1', password: 42 } }, 'credentials.password'],
      ['POST', embedded, { ...good, credentials: { ...good.credentials, pin: 1 } }, 'credentials.pin'],
      ['POST', embedded, { ...good, surprise: true }, 'surprise'],
      ['POST', embedded, { institutionId: 'sandbox-embedded' }, 'credentials'],
      ['POST', `/v1/consents/${id}/sca-method`, { scaMethodId: 7 }, 'scaMethodId'],
      ['POST', `/v1/consents/${id}/sca-method`, '[', undefined],
      ['POST', `/v1/consents/${id}/sca-code`, { code: 123456 }, 'code'],
      ['POST', `/v1/consents/${id}/sca-code`, { code: CODE, extra: 1 }, 'extra'],
      ['POST', `/v1/consents/${id}/reauthorise`, { redirectUrl: '/relative' }, 'redirectUrl'],
      ['POST', `/v1/consents/${id}/reauthorise`, { redirectUrl: REDIRECT, x: 1 }, 'x'],
      ['PUT', `/v1/consents/${id}/pre-authorisation`, { scopes: [] }, 'scopes'],
      ['PUT', `/v1/consents/${id}/pre-authorisation`, { scopes: 'ACCOUNTS' }, 'scopes'],
      ['PUT', `/v1/consents/${id}/pre-authorisation`, { scopes: ['ACCOUNTS'], y: 1 }, 'y'],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await stack.anonymous.as(owner.apiKey.key).call(method, path, { body });
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      const error = (response.body as ErrorBody).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      if (field) expect(error.details?.map((d) => d.field)).toContain(field);
    }
  });

  it('never logs the password, the SCA code, a consent token, a credential used or a configured secret (api and worker)', () => {
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    const text = `${apiLogs.text()}\n${workerLogs.text()}`;
    expect(apiLogs.text()).toContain('/consents/embedded');
    expect(workerLogs.text().length).toBeGreaterThan(0);
    expect(text).not.toContain(`"${PASSWORD}"`);
    expect(text).not.toContain(`:${PASSWORD}`);
    expect(text).not.toMatch(/password[^\n]{0,40}secret/i);
    expect(text).not.toContain('not-the-password');
    // The sandbox accepts only `secret`, a common word: so, line by line, no JSON field holds it as its
    // value and no password field holds anything but the redaction marker.
    for (const line of text.split('\n')) {
      expect(line).not.toMatch(/"[^"]*"\s*:\s*"secret"/);
      expect(line).not.toMatch(/[?&:=]\s*secret\b/);
      for (const [, value] of line.matchAll(/"password"\s*:\s*("(?:[^"\\]|\\.)*"|[^,}\s]+)/gi))
        expect(value, line).toBe('"[REDACTED]"');
    }
    expect(text).not.toContain(CODE);
    expect(text).not.toContain('999999');
    for (const token of tokens) expect(text).not.toContain(token);
    // Nor any credential used on the way in, nor any secret of the api's own configuration.
    expect(credentials.length).toBeGreaterThanOrEqual(4);
    for (const credential of credentials) expect(text).not.toContain(credential);
    for (const secret of configSecrets(api.config)) expect(text).not.toContain(secret);
  });
});
