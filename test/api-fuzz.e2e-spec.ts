import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertProperty, onboard, sessionToken, type Tenant, useStack } from './kit/index.js';
import { documentedOperations, type Operation, readOpenApiDocument } from './kit/openapi-kit.js';

/**
 * Issue 8, defect 12, kept standing: thousands of malformed requests to every route of /docs-json (bad
 * and hostile ids, query values, bodies and headers, every kind of caller) and not one 5xx, and every
 * error inside the envelope. A failure prints the shrunk request and the command that replays it
 * (`npm run test:properties -- --seed …`); `--runs` searches longer.
 */

const RUNS = 2_000;

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '..',
    '../../etc/passwd',
    '%00',
    '%',
    '%zz',
    '😀',
    'null',
    '-1',
    '1e309',
    'NaN',
    "' OR 1=1 --",
    '0190c0de-0000-7000-8000-000000000000',
    'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
  ),
  fc.integer().map(String),
  fc.uuid(),
  fc.nat(5_000).map((n) => 'x'.repeat(n)),
);

const nested = fc.nat(6_000).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);

const rawBody = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.dictionary(nasty, fc.oneof(nasty, fc.jsonValue())).map((v) => JSON.stringify(v)),
  nested,
  nested.map((n) => `{"name":${n},"reference":${n}}`),
  fc.string(),
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    '"\u0000"',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
  ),
  fc.constant(undefined),
);

describe('api: fuzzing every documented route', () => {
  // Rate limits would turn most requests into 429s: the point is to reach the handlers.
  const stack = useStack({
    overrides: {
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
  });
  let tenant: Tenant;
  let operations: Operation[];
  let tokens: (string | undefined)[];

  beforeAll(async () => {
    tenant = await onboard(stack);
    operations = documentedOperations(await readOpenApiDocument(stack.api.url));
    tokens = [
      undefined,
      stack.api.config.api.adminToken,
      tenant.merchant.apiKey.key,
      sessionToken(stack.api.config, { merchantId: tenant.merchant.merchant.id, userId: tenant.userId }),
      'mk_not-a-real-key',
      'us_garbage.garbage',
    ];
  });

  it('finds every route in the document', () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.filter((o) => o.hasBody).length).toBeGreaterThan(5);
  });

  it(`answers ${RUNS} malformed requests with no 5xx and every error in the envelope`, async () => {
    const request = fc.record({
      operation: fc.nat(),
      ids: fc.array(fc.oneof(nasty, fc.constant(tenant.userId)), { minLength: 4, maxLength: 4 }),
      query: fc.array(
        fc.tuple(fc.oneof(fc.constantFrom('limit', 'cursor', 'from', 'before', 'sort'), nasty), nasty),
        {
          maxLength: 4,
        },
      ),
      body: rawBody,
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        undefined,
      ),
      token: fc.nat(),
      method: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), { freq: 5 }),
    });

    const statuses = new Map<number, number>();
    await assertProperty(
      fc.asyncProperty(request, async (r) => {
        const op = operations[r.operation % operations.length];
        let i = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.ids[i++ % r.ids.length]));
        const query = new URLSearchParams([
          ...r.query,
          ...op.query.map((name, n) => [name, r.query[n]?.[1] ?? ''] as [string, string]),
        ]).toString();
        const token = tokens[r.token % tokens.length];
        const headers: Record<string, string> = {};
        if (token) headers.authorization = `Bearer ${token}`;
        if (r.contentType && r.body !== undefined) headers['content-type'] = r.contentType;
        const response = await fetch(`${stack.api.url}${path}?${query}`, {
          method: r.method ?? op.method,
          headers,
          body: r.body === undefined || (r.method ?? op.method) === 'GET' ? undefined : r.body,
          redirect: 'manual',
        });
        // A live event stream never ends by itself: its headers are the answer (it has no error body).
        const streaming = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
        if (streaming) await response.body?.cancel();
        const text = streaming ? '' : await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const where = `${r.method ?? op.method} ${op.path} → ${response.status}: ${text.slice(0, 300)}`;
        expect(response.status, where).toBeLessThan(500);
        if (response.status >= 400) {
          const body = JSON.parse(text) as { error?: Record<string, unknown> };
          expect(body.error, where).toMatchObject({
            code: expect.any(String),
            status: response.status,
            message: expect.any(String),
            tracingId: expect.any(String),
          });
        }
      }),
      RUNS,
    );
    // The requests reached the handlers, not just the authentication guard.
    const count = (test: (status: number) => boolean) =>
      [...statuses].filter(([s]) => test(s)).reduce((n, [, c]) => n + c, 0);
    expect(
      count((s) => s === 400),
      JSON.stringify([...statuses]),
    ).toBeGreaterThan(count(() => true) / 20);
    expect(
      count((s) => s === 404),
      JSON.stringify([...statuses]),
    ).toBeGreaterThan(count(() => true) / 50);
    expect(
      count((s) => s < 300),
      JSON.stringify([...statuses]),
    ).toBeGreaterThan(0);
  }, 300_000);
});
