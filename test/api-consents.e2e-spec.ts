import { beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '#libs/crypto';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  captureLogger,
  configSecrets,
  type CreatedMerchant,
  createMerchant,
  createUser,
  type ErrorBody,
  SandboxHttp,
  send,
  sessionToken,
  type Stack,
  useStack,
} from './kit/index.js';

const REDIRECT = 'https://app.merchant.example/banks/done?tab=1';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('api: consents (redirect flow) and accounts', () => {
  // The api listens on a random port, so its public URL cannot name it: the test, as the browser, takes
  // the callback's path and query from the bank's redirect and calls the running api with them.
  const logs = captureLogger('api');
  const stack = useStack({ overrides: { LOG_LEVEL: 'trace' }, loggers: { api: logs.logger } });
  let sandbox: Stack['sandbox'];
  let api: Stack['api'];
  let prisma: PrismaService;
  let owner: CreatedMerchant;
  let other: CreatedMerchant;
  let userId: string;
  let otherUserId: string;
  const secrets: string[] = [];
  /** Merchant API keys and session tokens this file sends: none may reach the logs. */
  const credentials: string[] = [];
  const session = (subject: { merchantId: string; userId: string }) => {
    const token = sessionToken(api.config, subject);
    credentials.push(token);
    return token;
  };

  /** The path and query of a URL, on another base: public URLs name default ports, the apps listen on random ones. */
  const on = (base: string, url: string) => {
    const u = new URL(url);
    return `${base}${u.pathname}${u.search}`;
  };

  async function startConsent(merchant = owner, user = userId, body: Record<string, unknown> = {}) {
    const response = await stack.anonymous.as(merchant.apiKey.key).post(`/v1/users/${user}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: REDIRECT,
      ...body,
    });
    if (response.status !== 201)
      throw new Error(`POST consent: ${response.status} ${JSON.stringify(response.body)}`);
    return (response.body as { data: { id: string; status: string; authorisationUrl: string } }).data;
  }

  /** Acts as the browser at the sandbox's hosted bank page; answers the callback URL the bank sends it to. */
  async function decideAtBank(authorisationUrl: string, decision: 'approve' | 'deny'): Promise<string> {
    const page = await send(on(sandbox.url, authorisationUrl), 'GET');
    expect(page.status).toBe(200);
    const form = await send(on(sandbox.url, authorisationUrl), 'POST', {
      rawBody: new URLSearchParams({ decision }).toString(),
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(302);
    const location = form.headers.get('location')!;
    expect(new URL(location).pathname).toBe('/v1/callbacks/consents');
    return on(api.url, location);
  }

  const browse = (url: string) => send(url, 'GET');

  /** Our callback's answer sends the browser back to the merchant's URL, its query kept, the consent AUTHORIZED. */
  function expectSentBackAuthorized(answer: Response, consentId: string) {
    expect(answer.status).toBe(302);
    const target = new URL(answer.headers.get('location')!);
    expect(`${target.origin}${target.pathname}`).toBe('https://app.merchant.example/banks/done');
    expect(Object.fromEntries(target.searchParams)).toEqual({ tab: '1', consentId, status: 'AUTHORIZED' });
  }

  /** Our callback at `callback` sends the browser back to the merchant with the consent's outcome. */
  async function expectSentBack(
    callback: string,
    consentId: string,
    outcome: { status: string; error: string },
  ) {
    const answer = await browse(callback);
    expect(answer.status).toBe(302);
    const target = new URL(answer.headers.get('location')!);
    expect(target.searchParams.get('consentId')).toBe(consentId);
    expect(target.searchParams.get('status')).toBe(outcome.status);
    expect(target.searchParams.get('error')).toBe(outcome.error);
  }

  async function connected() {
    const consent = await startConsent();
    const callback = await decideAtBank(consent.authorisationUrl, 'approve');
    const answer = await browse(callback);
    expect(answer.status).toBe(302);
    return { consent, callback, answer };
  }

  beforeAll(async () => {
    ({ sandbox, api } = stack);
    prisma = api.app.get(PrismaService);
    owner = await createMerchant(api);
    other = await createMerchant(api);
    credentials.push(owner.apiKey.key, other.apiKey.key);
    const users = api.app.get(UserRepository);
    userId = (await createUser(users, owner.merchant.id)).id;
    otherUserId = (await createUser(users, owner.merchant.id)).id;
  });

  it('connects a bank end to end: callback, encrypted token, accounts and balances, then reads them', async () => {
    const { consent, callback, answer } = await connected();
    expect(consent.id).toMatch(UUID);
    expect(consent.status).toBe('AWAITING_AUTHORIZATION');
    secrets.push(new URL(callback).searchParams.get('oneTimeToken')!);

    expectSentBackAuthorized(answer, consent.id);
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');

    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    expect(row).toMatchObject({ status: 'AUTHORIZED', kind: 'ACCOUNT', flow: 'REDIRECT', stateNonce: null });
    expect(row.authorizedAt).toBeInstanceOf(Date);
    expect(row.tokenCiphertext).toBeTruthy();
    const token = new SecretBox(api.config.crypto.encryptionKeys).open(
      { keyId: row.tokenKeyId!, ciphertext: row.tokenCiphertext! },
      row.id,
    );
    expect(token.split('.')).toHaveLength(3);
    expect(row.tokenCiphertext).not.toContain(token);
    secrets.push(token);

    const accounts = await prisma.account.findMany({
      where: { consentId: consent.id },
      include: { balances: true },
    });
    expect(accounts).toHaveLength(3);
    expect(accounts.every((a) => a.balances.length > 0 && a.merchantId === owner.merchant.id)).toBe(true);

    const byKey = await stack.anonymous.as(owner.apiKey.key).get(`/v1/consents/${consent.id}`);
    expect(byKey.status).toBe(200);
    const view = (byKey.body as { data: Record<string, unknown> }).data;
    expect(view).toMatchObject({
      id: consent.id,
      status: 'AUTHORIZED',
      institutionId: 'sandbox-redirect',
      // The upstream's id, to quote to its support: what the upstream itself calls the consent.
      upstreamConsentId: row.upstreamConsentId,
      userId,
      // The accounts are stored but not yet synced.
      sync: { status: 'pending', lastSyncedAt: null },
    });
    expect(JSON.stringify(view)).not.toContain(token);

    const userSession = session({ merchantId: owner.merchant.id, userId });
    const list = await stack.anonymous.as(userSession).get(`/v1/users/${userId}/accounts`);
    expect(list.status).toBe(200);
    const listed = list.body as {
      data: {
        id: string;
        consentId: string;
        balances: { balance: { amount: string; currency: string } }[];
        sync: { status: string };
      }[];
      meta: { count: number };
    };
    expect(listed.meta.count).toBe(3);
    for (const a of listed.data) {
      expect(a.consentId).toBe(consent.id);
      expect(a.sync.status).toBe('pending');
      for (const b of a.balances) expect(b.balance.amount).toMatch(/^-?\d+\.\d{2,4}$/);
    }
    const stored = accounts.find((a) => a.id === listed.data[0].id)!;
    const one = await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${stored.id}`);
    expect(one.status).toBe(200);
    const oneView = (one.body as { data: { balances: { type: string; balance: { amount: string } }[] } })
      .data;
    for (const b of stored.balances) {
      const shown = oneView.balances.find((x) => x.type === b.type)!;
      expect(shown.balance.amount).toBe(b.amount.toFixed(Math.max(2, b.amount.decimalPlaces())));
    }

    // The same return again (a reload after a lost answer, the back button): nothing is exchanged twice;
    // the browser goes back to the merchant with the consent's status as it is now.
    const tokenBefore = (await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } }))
      .tokenCiphertext;
    expectSentBackAuthorized(await browse(callback), consent.id);
    expect((await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } })).tokenCiphertext).toEqual(
      tokenBefore,
    );
  });

  it('sends a denied authorisation back as REJECTED with error=access_denied', async () => {
    const consent = await startConsent();
    const callback = await decideAtBank(consent.authorisationUrl, 'deny');
    await expectSentBack(callback, consent.id, { status: 'REJECTED', error: 'access_denied' });
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    expect(row).toMatchObject({ status: 'REJECTED', tokenCiphertext: null, stateNonce: null });
  });

  it('sends a bank error other than access_denied back as it is, with no token stored', async () => {
    const consent = await startConsent();
    const callback = new URL(await decideAtBank(consent.authorisationUrl, 'approve'));
    callback.searchParams.delete('oneTimeToken');
    callback.searchParams.set('error', 'server_error');
    callback.searchParams.set('error_description', 'The bank is down');
    await expectSentBack(callback.toString(), consent.id, { status: 'REJECTED', error: 'server_error' });
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    expect(row).toMatchObject({ status: 'REJECTED', lastErrorCode: 'server_error', tokenCiphertext: null });
  });

  it('reports a failed one-time-token exchange as FAILED with error=server_error', async () => {
    const consent = await startConsent();
    const callback = new URL(await decideAtBank(consent.authorisationUrl, 'approve'));
    expect(callback.searchParams.get('oneTimeToken')).toBeTruthy();
    callback.searchParams.set('oneTimeToken', 'not-a-one-time-token');
    await expectSentBack(callback.toString(), consent.id, { status: 'FAILED', error: 'server_error' });
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    expect(row).toMatchObject({
      status: 'FAILED',
      lastErrorCode: 'TOKEN_EXCHANGE_FAILED',
      tokenCiphertext: null,
    });
    const view = await stack.anonymous.as(owner.apiKey.key).get(`/v1/consents/${consent.id}`);
    expect((view.body as { data: { status: string } }).data.status).toBe('FAILED');
  });

  it('replays POST /v1/users/{userId}/consents on the same Idempotency-Key, and refuses another body', async () => {
    const path = `/v1/users/${userId}/consents`;
    const body = { institutionId: 'sandbox-redirect', redirectUrl: REDIRECT };
    const key = { 'idempotency-key': `consent-${Date.now()}` };
    const first = await stack.anonymous.as(owner.apiKey.key).post(path, body, { headers: key });
    expect(first.status).toBe(201);
    const created = (first.body as { data: { id: string } }).data;
    const replay = await stack.anonymous.as(owner.apiKey.key).post(path, body, { headers: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((replay.body as { data: { id: string } }).data.id).toBe(created.id);
    const mismatch = await stack.anonymous
      .as(owner.apiKey.key)
      .post(path, { ...body, redirectUrl: `${REDIRECT}&x=2` }, { headers: key });
    expect(mismatch.status).toBe(409);
    expect((mismatch.body as ErrorBody).error.code).toBe('IDEMPOTENCY_MISMATCH');
    expect(await prisma.consent.count({ where: { id: created.id } })).toBe(1);
  });

  it('refuses a tampered, forged or missing state with 400 and no redirect, leaving the real one usable', async () => {
    const consent = await startConsent();
    const callback = new URL(await decideAtBank(consent.authorisationUrl, 'approve'));
    const state = callback.searchParams.get('bffState')!;
    const [payload, mac] = state.split('.') as [string, string];
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), e: 9_999_999_999 }),
    ).toString('base64url');
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [`${payload}.${flipped}`, `${forgedPayload}.${mac}`, 'garbage', null]) {
      const url = new URL(callback);
      if (bad === null) url.searchParams.delete('bffState');
      else url.searchParams.set('bffState', bad);
      const response = await browse(url.toString());
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(((await response.json()) as ErrorBody).error.code).toBe('VALIDATION_FAILED');
    }
    const real = await browse(callback.toString());
    expect(real.status).toBe(302);
    expect(new URL(real.headers.get('location')!).searchParams.get('status')).toBe('AUTHORIZED');
  });

  it('revokes a consent upstream and locally, and a second DELETE is harmless', async () => {
    const { consent } = await connected();
    const deleted = await stack.anonymous.as(owner.apiKey.key).delete(`/v1/consents/${consent.id}`);
    expect(deleted.status).toBe(204);
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    expect(row).toMatchObject({ status: 'REVOKED', tokenCiphertext: null });
    expect(row.revokedAt).toBeInstanceOf(Date);
    const accounts = await prisma.account.findMany({ where: { consentId: consent.id } });
    expect(accounts.every((a) => a.syncStatus === 'STOPPED' && a.nextSyncAt === null)).toBe(true);

    const upstream = await new SandboxHttp(sandbox.url, api.config).call<{ data: { status: string } }>(
      'GET',
      `/consents/${row.upstreamConsentId}`,
      { auth: { id: api.config.upstream.applicationId, secret: api.config.upstream.applicationSecret } },
    );
    expect(upstream.status).toBe(200);
    expect(upstream.body.data.status).toBe('REVOKED');

    expect((await stack.anonymous.as(owner.apiKey.key).delete(`/v1/consents/${consent.id}`)).status).toBe(
      204,
    );
    const view = await stack.anonymous.as(owner.apiKey.key).get(`/v1/consents/${consent.id}`);
    expect((view.body as { data: { status: string } }).data.status).toBe('REVOKED');
  });

  it('lists a user’s consents newest first, paged by cursor', async () => {
    const a = await startConsent();
    const b = await startConsent();
    const first = await stack.anonymous.as(owner.apiKey.key).get(`/v1/users/${userId}/consents?limit=1`);
    expect(first.status).toBe(200);
    const page1 = first.body as {
      data: { id: string; authorisationUrl?: string }[];
      meta: { nextCursor: string | null };
    };
    expect(page1.data.map((c) => c.id)).toEqual([b.id]);
    expect(page1.data[0].authorisationUrl).toBe(b.authorisationUrl);
    const second = await stack.anonymous
      .as(owner.apiKey.key)
      .get(`/v1/users/${userId}/consents?limit=1&cursor=${page1.meta.nextCursor}`);
    expect((second.body as { data: { id: string }[] }).data.map((c) => c.id)).toEqual([a.id]);
  });

  it('answers 404 for another merchant’s or another user’s consents and accounts, exactly as for missing ones', async () => {
    const { consent } = await connected();
    const account = await prisma.account.findFirstOrThrow({ where: { consentId: consent.id } });
    const strangers = [other.apiKey.key, session({ merchantId: owner.merchant.id, userId: otherUserId })];
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/consents/${consent.id}`],
      ['DELETE', `/v1/consents/${consent.id}`],
      ['GET', `/v1/accounts/${account.id}`],
      ['GET', `/v1/users/${userId}/accounts`],
      ['GET', `/v1/users/${userId}/consents`],
      ['POST', `/v1/users/${userId}/consents`, { institutionId: 'sandbox-redirect', redirectUrl: REDIRECT }],
    ];
    for (const token of strangers) {
      for (const [method, path, body] of routes) {
        const response = await stack.anonymous.as(token).call(method, path, { body });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect((response.body as ErrorBody).error.code).toBe('NOT_FOUND');
      }
    }
    const missing = await stack.anonymous
      .as(owner.apiKey.key)
      .get('/v1/consents/00000000-0000-7000-8000-000000000000');
    expect(missing.status).toBe(404);
    const still = await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    expect(still.status).toBe('AUTHORIZED');
  });

  it('refuses malformed JSON, wrong types, unknown fields and bad redirect URLs with 400 VALIDATION_FAILED', async () => {
    const path = `/v1/users/${userId}/consents`;
    const good = { institutionId: 'sandbox-redirect', redirectUrl: REDIRECT };
    const cases: [unknown, string?][] = [
      ['{"institutionId": ', undefined],
      [{ ...good, institutionId: 42 }, 'institutionId'],
      [{ ...good, scopes: 'ACCOUNTS' }, 'scopes'],
      [{ ...good, expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ ...good, surprise: true }, 'surprise'],
      [{ ...good, redirectUrl: '/relative/path' }, 'redirectUrl'],
      [{ ...good, redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
      [{ institutionId: 'sandbox-redirect' }, 'redirectUrl'],
    ];
    for (const [body, field] of cases) {
      const response = await stack.anonymous.as(owner.apiKey.key).post(path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (response.body as ErrorBody).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      if (field) expect(error.details?.map((d) => d.field)).toContain(field);
    }

    const strict = await createMerchant(api, { frontendOrigins: ['https://shop.example'] });
    credentials.push(strict.apiKey.key);
    const strictUser = await createUser(api.app.get(UserRepository), strict.merchant.id);
    const offOrigin = await stack.anonymous
      .as(strict.apiKey.key)
      .post(`/v1/users/${strictUser.id}/consents`, good);
    expect(offOrigin.status).toBe(400);
    expect((offOrigin.body as ErrorBody).error.details).toEqual([
      { field: 'redirectUrl', issue: "must be on one of the merchant's frontendOrigins" },
    ]);
    const onOrigin = await stack.anonymous.as(strict.apiKey.key).post(`/v1/users/${strictUser.id}/consents`, {
      ...good,
      redirectUrl: 'https://shop.example/done',
    });
    expect(onOrigin.status).toBe(201);
  });

  it('refuses bad list queries on consents and accounts with 400 VALIDATION_FAILED in the envelope', async () => {
    const userSession = session({ merchantId: owner.merchant.id, userId });
    const queries: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-5', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      ['cursor=eyJpZCI6IngifQ', 'cursor'],
      ['cursor=%24%7Bjndi%7D', 'cursor'],
      ['surprise=1', 'surprise'],
    ];
    for (const list of ['consents', 'accounts']) {
      for (const token of [owner.apiKey.key, userSession]) {
        for (const [query, field] of queries) {
          const response = await stack.anonymous.as(token).get(`/v1/users/${userId}/${list}?${query}`);
          expect(response.status, `${list}?${query}`).toBe(400);
          expect(response.headers.get('content-type')).toMatch(/application\/json/);
          const error = (response.body as ErrorBody).error;
          expect(error.status, `${list}?${query}`).toBe(400);
          expect(error.code, `${list}?${query}`).toBe('VALIDATION_FAILED');
          expect(
            error.details?.map((d) => d.field),
            `${list}?${query}`,
          ).toContain(field);
        }
      }
    }
  });

  it('never logs the consent token, the one-time token, a credential used or a configured secret', () => {
    expect(secrets.length).toBe(2);
    const text = logs.text();
    expect(text).toContain('/v1/callbacks/consents');
    for (const secret of secrets) expect(text).not.toContain(secret);
    // Nor any credential used on the way in, nor any secret of the api's own configuration.
    expect(credentials.length).toBeGreaterThanOrEqual(5);
    for (const credential of credentials) expect(text).not.toContain(credential);
    for (const secret of configSecrets(api.config)) expect(text).not.toContain(secret);
  });
});
