import { beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '#libs/crypto';
import {
  type ApiResponse,
  bankRedirect,
  type ErrorBody,
  onboard,
  registeredSecret,
  sessionToken,
  type Tenant,
  upstreamEvent,
  upstreamEventBody,
  useStack,
} from './kit/index.js';
import {
  AnswerChecker,
  documentedOperations,
  type Operation,
  readOpenApiDocument,
} from './kit/openapi-kit.js';

/**
 * Issue 81, finding 10: a query parameter its operation does not declare was refused by some routes
 * (those with a query input) and silently ignored by the rest, so a generated client's misspelt filter
 * read an unfiltered answer. Now every operation of /docs-json refuses one with 400 naming it, before the
 * route runs, except the few whose URL a third party builds, which the document marks and which drop it.
 */
describe('api: a query parameter the operation does not declare', () => {
  const stack = useStack({ overrides: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  let tenant: Tenant;
  let operations: Operation[];
  let checker: AnswerChecker;

  beforeAll(async () => {
    tenant = await onboard(stack);
    const document = await readOpenApiDocument(stack.api.url);
    operations = documentedOperations(document);
    checker = new AnswerChecker(document);
  });

  const ignoring = (op: Operation) => op.operation['x-undeclared-query-parameters'] === 'ignored';

  /** The credential the operation takes: the route's query is checked once the caller is let in. */
  function tokenOf(op: Operation): string | null {
    if (op.security.includes('operator')) return stack.api.config.api.adminToken;
    if (op.security.includes('merchantApiKey')) return tenant.merchant.apiKey.key;
    if (op.security.includes('userSession'))
      return sessionToken(stack.api.config, {
        merchantId: tenant.merchant.merchant.id,
        userId: tenant.userId,
      });
    return null;
  }

  /** The operation with its declared parameters (any value) and `extra`: ids of nothing, so nothing is changed. */
  function send(op: Operation, extra: Record<string, string>): Promise<ApiResponse<ErrorBody>> {
    const path = op.path.replace(/\{[^}]+\}/g, '0190c0de-0000-7000-8000-000000000000');
    const query = new URLSearchParams({ ...Object.fromEntries(op.query.map((n) => [n, 'x'])), ...extra });
    return stack.anonymous.call(op.method, `${path}?${query.toString()}`, { token: tokenOf(op) });
  }

  it('is refused by every operation with 400 naming it, and the ones the operation takes', async () => {
    const refusing = operations.filter((op) => !ignoring(op));
    expect(refusing.length).toBeGreaterThan(90);
    const wrong: string[] = [];
    for (const op of refusing) {
      const answer = await send(op, { colour: 'blue', Limit: '5' });
      const error = answer.body?.error;
      const problems = checker.problems(op.key, {
        status: answer.status,
        contentType: answer.headers.get('content-type') ?? '',
        body: answer.body,
      });
      const takes = op.query.length > 0 ? op.query.join(', ') : 'none';
      if (
        answer.status !== 400 ||
        error?.code !== 'VALIDATION_FAILED' ||
        JSON.stringify(error.details?.map((d) => d.field)) !== JSON.stringify(['colour', 'Limit']) ||
        !error.message.includes('colour, Limit') ||
        !error.message.includes(`it takes ${takes}`) ||
        problems.length > 0
      )
        wrong.push(
          `${op.key} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)} ${problems.join('; ')}`,
        );
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
  });

  it('says which, and what the operation takes, in the message; a HEAD as its GET', async () => {
    const answer = await tenant.client.get('/v1/users?refrence=alice');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message:
        'Unknown query parameter refrence: this operation does not declare it (it takes limit, cursor, reference).',
      details: [
        {
          field: 'refrence',
          issue: 'refrence is not a query parameter of this operation (it takes limit, cursor, reference)',
        },
      ],
    });
    expect((await tenant.client.call('HEAD', '/v1/users?refrence=alice')).status).toBe(400);
    expect((await tenant.client.call('HEAD', '/v1/users?limit=1')).status).toBe(200);
  });

  it('is ignored only where a third party builds the URL, as the document says', () => {
    expect(operations.filter(ignoring).map((op) => op.key)).toEqual([
      'GET /v1/callbacks/consents/reauthorise',
      'GET /v1/callbacks/consents',
      'POST /v1/webhooks/upstream',
    ]);
  });

  it('lets the bank add a parameter to its redirect: the consent completes', async () => {
    const created = await tenant.client.post(`/v1/users/${tenant.userId}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://app.merchant.example/banks/done',
    });
    expect(created.status).toBe(201);
    const callback = new URL(
      await bankRedirect(
        { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
        created.body.data.authorisationUrl,
      ),
    );
    callback.searchParams.set('bank-session', 'abc');
    const back = await stack.anonymous.get(`${callback.pathname}${callback.search}`);
    expect(back.status, JSON.stringify(back.body)).toBe(302);
    expect(new URL(back.headers.get('location')!).searchParams.get('status')).toBe('AUTHORIZED');
  });

  it('lets a mail service tag the renewal link: only the link itself is judged', async () => {
    const page = await stack.anonymous.get<ErrorBody>(
      '/v1/callbacks/consents/reauthorise?link=nope&utm_source=mail',
    );
    expect(page.status).toBe(400);
    expect(page.body.error.details?.map((d) => d.field)).toEqual(['link']);
  });

  it('lets the upstream add a parameter to its webhook call: a signed event is taken', async () => {
    const secret = await registeredSecret(stack);
    const event = upstreamEvent('consent.state.revoked', { consentId: 'not-one-of-ours' });
    const body = upstreamEventBody(stack, event);
    const headers = webhookHeaders({
      id: event.id,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    });
    const received = await stack.anonymous.call('POST', '/v1/webhooks/upstream?delivery=1', {
      rawBody: body,
      headers,
    });
    expect(received.status, JSON.stringify(received.body)).toBe(200);
  });
});
