import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountsWhenSynced,
  connect,
  dataOf,
  eventually,
  onboard,
  syncAtFailingBank,
  type Tenant,
  useReceiver,
  useStack,
  WAIT,
} from './kit/index.js';

const UNKNOWN_UUID = '0190c0de-0000-7000-8000-000000000000';

interface Envelope<T = Record<string, unknown>> {
  data: T;
  meta: { tracingId: string; nextCursor?: string | null };
}
interface ErrorBody {
  error: { code: string; status: number; message: string; tracingId: string };
}
interface Run {
  id: string;
  status: string;
  error: { code: string; message: string; upstream: { tracingId: string } } | null;
}

/** The SDK's own client over Streamable HTTP, sending `headers` with every request. */
async function mcpClient(apiUrl: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'support-assistant-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/v1/mcp', apiUrl), { requestInit: { headers } }),
  );
  return client;
}

/** Each tool's declared output schema, compiled as the SDK's client compiles it (draft-07 Ajv). */
const outputSchemas = new Map<string, ValidateFunction>();

/**
 * A tool's answer, its structured content held to the tool's declared output schema here too (the
 * client checks it only once it has listed the tools).
 */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) {
    const validate = outputSchemas.get(name)!;
    expect(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  return result;
}

/** A tool's answer: the view, the same as its JSON text. */
function viewOf<T>(result: CallToolResult): Envelope<T> {
  expect(result.isError ?? false).toBe(false);
  const text = (result.content[0] as { text: string }).text;
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as unknown as Envelope<T>;
}

/**
 * A tool's failure: the REST envelope's error as text, without the request's own tracing id (no
 * structured content: that is held to the success's output schema).
 */
function errorOf(result: CallToolResult): Omit<ErrorBody['error'], 'tracingId'> {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = (result.content[0] as { text: string }).text;
  const { tracingId, ...error } = (JSON.parse(text) as ErrorBody).error;
  expect(tracingId).toBeTruthy();
  return error;
}

/**
 * The api's MCP server (docs/mcp.md) on the real stack, driven by the SDK's own client: a support
 * assistant asks why a customer's bank stopped updating, and follows the customer to their consent, the
 * account's runs and the failed run's error with the upstream's tracing id. Another merchant's key sees
 * exactly what an unknown id shows; no key, a revoked key, are refused before any tool runs.
 */
describe('api: the MCP server for a support assistant', () => {
  const stack = useStack({ worker: true });
  let tenant: Tenant;
  let other: Tenant;
  let assistant: Client;
  let reference: string;
  let consentId: string;
  let accountId: string;
  let endpointId: string;
  let failed: Run;
  const receiver = useReceiver();

  beforeAll(async () => {
    [tenant, other] = [await onboard(stack), await onboard(stack)];
    reference = dataOf<{ reference: string }>(
      await tenant.client.get(`/v1/users/${tenant.userId}`),
    ).reference;
    consentId = await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    accountId = account.id;
    endpointId = dataOf<{ endpoint: { id: string } }>(
      await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: ['sync.failed'] }),
      201,
    ).endpoint.id;
    // The bank refuses the account's transactions: a refusal the sync does not retry, so the run fails.
    failed = (await syncAtFailingBank(stack, tenant, account)) as unknown as Run;
    expect(failed.status).toBe('failed');
    assistant = await mcpClient(stack.api.url, { authorization: `Bearer ${tenant.merchant.apiKey.key}` });
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajvFormats.default(ajv);
    for (const tool of (await assistant.listTools()).tools) {
      if (tool.outputSchema) outputSchemas.set(tool.name, ajv.compile(tool.outputSchema));
    }
  }, 180_000);

  afterAll(async () => {
    await assistant?.close();
  });

  it('lists its read-only tools', async () => {
    const { tools } = await assistant.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'consent_history',
        'find_customer',
        'get_consent',
        'get_customer',
        'get_sync_run',
        'list_accounts',
        'list_consents',
        'list_deliveries',
        'list_delivery_attempts',
        'list_sync_runs',
        'list_upstream_calls',
        'connection_conversion',
        'connect_funnel',
        'institution_health',
        'look_up',
      ].sort(),
    );
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    // Each tool's arguments as its input class declares them: the route's query, and its path's ids.
    const consents = tools.find((t) => t.name === 'list_consents')!.inputSchema;
    expect(consents).toMatchObject({ type: 'object', required: ['userId'], additionalProperties: false });
    expect(consents.properties).toMatchObject({
      limit: { type: 'number', minimum: 1, maximum: 100, default: 50 },
      cursor: { type: 'string' },
      userId: { type: 'string' },
    });
  });

  it('declares each tool’s output schema: its REST route’s answer, from the same OpenAPI document', async () => {
    const { tools } = await assistant.listTools();
    const document = (await stack.anonymous.get('/docs-json')).body as {
      components: { schemas: Record<string, { required?: string[] }> };
    };
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', required: ['data', 'meta'] });
      expect(outputSchemas.has(tool.name), tool.name).toBe(true);
    }
    // Not a copy: the customer's fields are the component's own, required as the document has them.
    const customer = tools.find((t) => t.name === 'get_customer')!.outputSchema!;
    expect((customer.properties!.data as { required: string[] }).required).toEqual(
      document.components.schemas.UserOutput.required,
    );
    // The client holds every answer to it (test `follows a customer…` calls every tool).
    expect(outputSchemas.get('get_customer')!({ data: { id: 1 }, meta: {} })).toBe(false);
  });

  it('follows a customer by reference to the failed run’s error and the upstream’s tracing id', async () => {
    const customer = viewOf<{ id: string }>(await call(assistant, 'find_customer', { reference })).data;
    expect(customer.id).toBe(tenant.userId);
    const consents = viewOf<{ id: string }[]>(
      await call(assistant, 'list_consents', { userId: customer.id }),
    ).data;
    expect(consents.map((c) => c.id)).toEqual([consentId]);
    const history = viewOf<{ to: string }[]>(await call(assistant, 'consent_history', { consentId })).data;
    expect(history.at(-1)?.to).toBe('AUTHORIZED');
    expect(history).toEqual(dataOf(await tenant.client.get(`/v1/consents/${consentId}/history`)));
    const accounts = viewOf<{ id: string }[]>(
      await call(assistant, 'list_accounts', { userId: customer.id }),
    ).data;
    expect(accounts.map((a) => a.id)).toContain(accountId);
    const runs = viewOf<Run[]>(await call(assistant, 'list_sync_runs', { accountId })).data;
    const run = runs.find((r) => r.status === 'failed')!;
    expect(run.id).toBe(failed.id);
    expect(run.error?.upstream.tracingId).toBe(failed.error!.upstream.tracingId);
    // The same view the REST route serves.
    const one = viewOf<Run>(await call(assistant, 'get_sync_run', { syncId: run.id })).data;
    expect(one).toEqual(dataOf(await tenant.client.get(`/v1/syncs/${run.id}`)));
    // Quoting the tracing id back finds the run, its sync.failed event and that event's delivery.
    const found = await eventually('the sync.failed event delivered', async () => {
      const view = viewOf<{ syncRuns: Run[]; deliveries: { id: string; status: string }[] }>(
        await call(assistant, 'look_up', { id: run.error!.upstream.tracingId }),
      ).data;
      return view.deliveries.some((d) => d.status === 'SUCCEEDED') ? view : undefined;
    });
    expect(found.syncRuns.map((r) => r.id)).toEqual([run.id]);
    const deliveries = viewOf<{ id: string }[]>(
      await call(assistant, 'list_deliveries', { endpointId }),
    ).data;
    expect(deliveries.map((d) => d.id)).toContain(found.deliveries[0].id);
    const attempts = viewOf<{ attempt: number }[]>(
      await call(assistant, 'list_delivery_attempts', { endpointId, deliveryId: found.deliveries[0].id }),
    ).data;
    expect(attempts.length).toBeGreaterThan(0);

    // The run's calls to the bank: the refused one carries the same tracing id, as the REST log shows it.
    const calls = await eventually('the run’s calls written', async () => {
      const view = viewOf<{ errorCode: string | null; tracingId: string | null }[]>(
        await call(assistant, 'list_upstream_calls', { syncId: run.id }),
      ).data;
      return view.some((c) => c.errorCode !== null) ? view : undefined;
    });
    const refused = calls.filter((c) => c.errorCode !== null);
    expect(refused.map((c) => c.tracingId)).toEqual([run.error!.upstream.tracingId]);
    expect(calls).toEqual(dataOf(await tenant.client.get(`/v1/syncs/${run.id}/upstream-calls`)));
    const conversion = viewOf<{ institutions: { institutionId: string; authorised: number }[] }>(
      await call(assistant, 'connection_conversion', {}),
    ).data;
    expect(conversion.institutions).toEqual([
      expect.objectContaining({ institutionId: 'sandbox-redirect', authorised: 1 }),
    ]);
    // An attempt in the connect component, as it reports one: the tool answers as the REST route.
    const attemptId = randomUUID();
    for (const report of [{ event: 'opened' }, { event: 'chose', institutionId: 'sandbox-redirect' }]) {
      expect((await tenant.client.post('/v1/connect-funnel/reports', { attemptId, ...report })).status).toBe(
        204,
      );
    }
    const funnel = viewOf<{ institutions: { institutionId: string; chose: number }[] }>(
      await call(assistant, 'connect_funnel', {}),
    ).data;
    expect(funnel).toEqual(dataOf(await tenant.client.get('/v1/insights/connect-funnel')));
    expect(funnel.institutions).toEqual([
      expect.objectContaining({ institutionId: 'sandbox-redirect', chose: 1 }),
    ]);
    // The bank's health as the REST route answers it: its 400 refusal of the run is no error of the bank's.
    const health = viewOf<{ institutions: { institutionId: string; calls: number; errors: number }[] }>(
      await call(assistant, 'institution_health', {}),
    ).data;
    expect(health).toEqual(dataOf(await tenant.client.get('/v1/insights/institution-health')));
    expect(health.institutions).toEqual([
      expect.objectContaining({ institutionId: 'sandbox-redirect', errors: 0 }),
    ]);
    expect(health.institutions[0].calls).toBeGreaterThanOrEqual(calls.length);
  });

  it('answers a domain error as the REST envelope’s code and message, flagged isError', async () => {
    expect(errorOf(await call(assistant, 'get_sync_run', { syncId: 'not-an-id' }))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'Sync not found.',
    });
    const rest = (await tenant.client.get(`/v1/syncs/${UNKNOWN_UUID}`)).body as ErrorBody;
    const { tracingId: _, ...restError } = rest.error;
    expect(errorOf(await call(assistant, 'get_sync_run', { syncId: UNKNOWN_UUID }))).toEqual(restError);
  });

  it('refuses a bad argument with the 400 its route answers, code, message and details', async () => {
    const userId = tenant.userId;
    const cases: [tool: string, args: Record<string, unknown>, route: string][] = [
      ['list_consents', { userId, limit: 0 }, `/v1/users/${userId}/consents?limit=0`],
      ['list_accounts', { userId, limit: 101 }, `/v1/users/${userId}/accounts?limit=101`],
      [
        'list_sync_runs',
        { accountId, cursor: 'not a cursor' },
        `/v1/accounts/${accountId}/syncs?cursor=not+a+cursor`,
      ],
      [
        'consent_history',
        { consentId, cursor: 'x'.repeat(201) },
        `/v1/consents/${consentId}/history?cursor=${'x'.repeat(201)}`,
      ],
      ['look_up', { id: 'two words' }, '/v1/lookup?id=two+words'],
      ['find_customer', { reference: 'two words' }, '/v1/users?reference=two+words'],
      ['connection_conversion', { from: '2026-02-30' }, '/v1/insights/conversion?from=2026-02-30'],
      ['institution_health', { to: 'today' }, '/v1/insights/institution-health?to=today'],
      ['connect_funnel', { to: '2026-13-01' }, '/v1/insights/connect-funnel?to=2026-13-01'],
    ];
    for (const [tool, args, route] of cases) {
      const rest = await tenant.client.get(route);
      expect(rest.status, route).toBe(400);
      const { tracingId: _, ...restError } = (rest.body as ErrorBody).error;
      expect(errorOf(await call(assistant, tool, args)), tool).toEqual(restError);
    }
  });

  it('shows another merchant exactly what an unknown id shows', async () => {
    const outsider = await mcpClient(stack.api.url, { authorization: `Bearer ${other.merchant.apiKey.key}` });
    try {
      const deliveryId = viewOf<{ deliveries: { id: string }[] }>(
        await call(assistant, 'look_up', { id: failed.error!.upstream.tracingId }),
      ).data.deliveries[0].id;
      const probes: [string, Record<string, unknown>, Record<string, unknown>][] = [
        ['find_customer', { reference }, { reference: `${reference}-unknown` }],
        ['get_customer', { userId: tenant.userId }, { userId: UNKNOWN_UUID }],
        ['list_consents', { userId: tenant.userId }, { userId: UNKNOWN_UUID }],
        ['get_consent', { consentId }, { consentId: UNKNOWN_UUID }],
        ['consent_history', { consentId }, { consentId: UNKNOWN_UUID }],
        ['list_accounts', { userId: tenant.userId }, { userId: UNKNOWN_UUID }],
        ['list_sync_runs', { accountId }, { accountId: UNKNOWN_UUID }],
        ['get_sync_run', { syncId: failed.id }, { syncId: UNKNOWN_UUID }],
        ['list_deliveries', { endpointId }, { endpointId: UNKNOWN_UUID }],
        ['list_delivery_attempts', { endpointId, deliveryId }, { endpointId: UNKNOWN_UUID, deliveryId }],
      ];
      for (const [tool, theirs, unknown] of probes) {
        const seen = errorOf(await call(outsider, tool, theirs));
        expect(seen, tool).toEqual(errorOf(await call(outsider, tool, unknown)));
        expect(seen.code, tool).toBe('NOT_FOUND');
      }
      const lookedUp = viewOf<Record<string, unknown[]>>(
        await call(outsider, 'look_up', { id: failed.error!.upstream.tracingId }),
      ).data;
      expect([lookedUp.users, lookedUp.syncRuns, lookedUp.events, lookedUp.deliveries]).toEqual([
        [],
        [],
        [],
        [],
      ]);
    } finally {
      await outsider.close();
    }
  });

  it('refuses no key and a revoked key with 401 before any tool runs', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'probe', version: '1' },
      },
    };
    const { merchant } = tenant.merchant;
    const issued = await stack.operator.post(`/admin/merchants/${merchant.id}/api-keys`, { name: 'revoked' });
    const revoked = dataOf<{ id: string; key: string }>(issued, 201);
    expect(
      (await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${revoked.id}`)).status,
    ).toBe(204);
    const refused: Record<string, string>[] = [{}, { authorization: `Bearer ${revoked.key}` }];
    for (const headers of refused) {
      const answer = await fetch(new URL('/v1/mcp', stack.api.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
      expect(answer.status).toBe(401);
      expect(((await answer.json()) as ErrorBody).error.code).toBe('UNAUTHENTICATED');
      await expect(mcpClient(stack.api.url, headers)).rejects.toThrow();
    }
  });

  it('refuses the next call of a client at work, on every api, once its key is revoked or its merchant disabled', async () => {
    // Stateless: no stream or session outlives a request, so access ends with the next request, which
    // every api process refuses within the revocation bound, however warm its credential cache was.
    const another = await stack.startApi();
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const post = async (apiUrl: string, key: string) => {
      const answer = await fetch(new URL('/v1/mcp', apiUrl), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(list),
      });
      const body = (await answer.json()) as Partial<ErrorBody>;
      return [answer.status, body.error?.code ?? null] as const;
    };
    /** Each api's client answers a tool call, then every next call is refused with `status` and `code`. */
    const endsFor = async (tenantOf: Tenant, end: () => Promise<void>, status: number, code: string) => {
      const key = tenantOf.merchant.apiKey.key;
      const clients = await Promise.all(
        [stack.api.url, another.url].map((url) => mcpClient(url, { authorization: `Bearer ${key}` })),
      );
      try {
        for (const client of clients) {
          const customer = viewOf<{ id: string }>(
            await call(client, 'get_customer', { userId: tenantOf.userId }),
          );
          expect(customer.data.id).toBe(tenantOf.userId);
        }
        await end();
        await eventually(
          'every api refusing the ended credential',
          async () => {
            for (const url of [stack.api.url, another.url])
              expect(await post(url, key)).toEqual([status, code]);
            for (const client of clients) await expect(client.listTools()).rejects.toThrow();
            return true;
          },
          WAIT.revocation,
        );
      } finally {
        await Promise.all(clients.map((client) => client.close()));
      }
    };
    try {
      const revoked = await onboard(stack);
      await endsFor(
        revoked,
        async () => {
          const { merchant, apiKey } = revoked.merchant;
          const answer = await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`);
          expect(answer.status).toBe(204);
        },
        401,
        'UNAUTHENTICATED',
      );
      const disabled = await onboard(stack);
      await endsFor(
        disabled,
        async () => {
          const answer = await stack.operator.post(
            `/admin/merchants/${disabled.merchant.merchant.id}/disable`,
            {},
          );
          expect(answer.status).toBe(200);
        },
        403,
        'MERCHANT_DISABLED',
      );
      // Nobody else's access ends with theirs.
      expect((await post(stack.api.url, tenant.merchant.apiKey.key))[0]).toBe(200);
    } finally {
      await another.close();
    }
  });

  it('takes the merchant console’s session from the console’s own origin', async () => {
    const signedIn = await stack.anonymous.post('/console/session', { apiKey: tenant.merchant.apiKey.key });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
    const origin = new URL(stack.api.config.api.publicUrl).origin;
    const console = await mcpClient(stack.api.url, { cookie, origin });
    try {
      const customer = viewOf<{ id: string }>(await call(console, 'find_customer', { reference })).data;
      expect(customer.id).toBe(tenant.userId);
    } finally {
      await console.close();
    }
  });

  it('answers with the request id and the rate limit’s headers, as every route does', async () => {
    const answer = await fetch(new URL('/v1/mcp', stack.api.url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.merchant.apiKey.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-request-id': 'mcp-probe-1',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toBe('mcp-probe-1');
    expect(answer.headers.get('x-ratelimit-limit')).toBeTruthy();
    const { tools } = await assistant.listTools();
    expect(((await answer.json()) as { id: number; result: { tools: unknown[] } }).result.tools).toHaveLength(
      tools.length,
    );
  });

  it('has no stream to open nor session to end: GET and DELETE are no routes, as any unknown one', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(new URL('/v1/mcp', stack.api.url), {
        method,
        headers: { authorization: `Bearer ${tenant.merchant.apiKey.key}`, accept: 'text/event-stream' },
      });
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as ErrorBody).error.code).toBe('NOT_FOUND');
    }
  });

  it('refuses in the error envelope a body that is no JSON-RPC message, an Accept or a protocol version it cannot answer', async () => {
    const post = (body: unknown, accept = 'application/json, text/event-stream', extra = {}) =>
      fetch(new URL('/v1/mcp', stack.api.url), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.merchant.apiKey.key}`,
          'content-type': 'application/json',
          accept,
          ...extra,
        },
        body: JSON.stringify(body),
      });
    const listing = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    for (const [answer, field] of [
      [await post([listing]), 'body'],
      [await post({ id: 1 }), 'body'],
      [await post(listing, 'application/json'), 'accept'],
      [await post(listing, undefined, { 'mcp-protocol-version': '1999-01-01' }), 'mcp-protocol-version'],
    ] as const) {
      expect(answer.status).toBe(400);
      const { error } = (await answer.json()) as ErrorBody & { error: { details: { field: string }[] } };
      expect([error.code, error.details[0].field]).toEqual(['VALIDATION_FAILED', field]);
    }
  });
});
