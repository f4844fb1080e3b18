import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_SCHEMES } from '#libs/http';
import { type ApiResponse, createMerchant, onboard, type Stack, uniqueName, useStack } from './kit/index.js';
import { documentedOperations, readOpenApiDocument } from './kit/openapi-kit.js';

/** Sends raw bytes and reads the whole answer (the server closes the connection after a client error). */
function rawRequest(url: string, payload: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(payload));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parseRaw(answer: string) {
  const [head, body] = answer.split('\r\n\r\n', 2);
  return {
    statusLine: head.split('\r\n')[0],
    body: JSON.parse(body) as { error: Record<string, unknown> },
  };
}

const errorMessage = (response: ApiResponse) =>
  (response.body as { error?: { message?: string } }).error?.message;

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('api: malformed input gets a 4xx in the error envelope, never a 500', () => {
  const stack = useStack();
  let api: Stack['api'];

  const expectEnvelope = (response: ApiResponse, status: number) => {
    const body = response.body as { error: Record<string, unknown> };
    expect({ status: response.status, code: body.error.code }).toMatchObject({ status });
    expect(body.error).toMatchObject({ status, tracingId: expect.any(String) });
    return body;
  };

  beforeAll(() => {
    api = stack.api;
  });

  it('accepts Content-Type: application/json with no body on a bodiless DELETE', async () => {
    const { merchant, apiKey } = await createMerchant(api, { name: uniqueName('empty-body') });
    const revoked = await stack.operator.call(
      'DELETE',
      `/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`,
      {
        headers: {
          'content-type': 'application/json',
        },
      },
    );
    expect(revoked.status).toBe(204);
  });

  it('refuses a body nested 5,000 levels deep with 400', async () => {
    const response = await stack.operator.call('POST', '/admin/merchants', {
      rawBody: `{"name":${nested(5_000)}}`,
      headers: {
        'content-type': 'application/json',
      },
    });
    const body = expectEnvelope(response, 400);
    expect(body.error.code).toBe('VALIDATION_FAILED');
  });

  it('refuses NUL bytes in names and in path ids with 400', async () => {
    const named = await stack.operator.call('POST', '/admin/merchants', {
      rawBody: JSON.stringify({ name: 'bad\u0000name' }),
      headers: {
        'content-type': 'application/json',
      },
    });
    expectEnvelope(named, 400);
    const path = await stack.operator.call('GET', '/admin/merchants/abc%00def');
    expectEnvelope(path, 400);
  });

  it('names the telling issue of a bad query value: limit=abc is not an integer', async () => {
    const body = expectEnvelope(await stack.operator.call('GET', '/admin/merchants?limit=abc'), 400);
    expect(body.error.details).toEqual([{ field: 'limit', issue: 'limit must be an integer number' }]);
  });

  it('answers a non-UUID merchant id on DELETE api-keys with 404, not 500', async () => {
    const response = await stack.operator.call(
      'DELETE',
      '/admin/merchants/not-a-uuid/api-keys/0190c0de-0000-7000-8000-000000000000',
    );
    expectEnvelope(response, 404);
  });

  // Ids are checked once, at the edge: every id a path names answers a non-UUID as it answers an unknown
  // id (that resource's 404), before the route reads a body, on every route of the document.
  it('answers a non-UUID id in any path with that resource’s 404, never a 500', async () => {
    const tenant = await onboard(stack);
    const operations = documentedOperations(await readOpenApiDocument(api.url)).filter((op) =>
      op.pathParams.some((name) => name === 'id' || (name.endsWith('Id') && name !== 'institutionId')),
    );
    expect(operations.length).toBeGreaterThan(40);
    let compared = 0;
    for (const op of operations) {
      const admin = op.path.startsWith('/admin/');
      const scheme = admin ? SECURITY_SCHEMES.operator : SECURITY_SCHEMES.merchant;
      if (!op.security.includes(scheme)) continue;
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        name === 'institutionId' ? 'modelo-sandbox' : 'not-a-uuid',
      );
      const caller = admin ? stack.operator : tenant.client;
      const response = await caller.call(op.method, path, {
        ...(op.hasBody ? { body: {} } : {}),
        ...(op.headers.includes('Idempotency-Key')
          ? { headers: { 'idempotency-key': uniqueName('id') } }
          : {}),
      });
      const body = response.body as { error?: { code?: string; message?: string } };
      expect({ route: op.key, status: response.status, code: body.error?.code }).toEqual({
        route: op.key,
        status: 404,
        code: 'NOT_FOUND',
      });
      expect(body.error?.message, op.key).toMatch(/ not found\.$/);
      // The pipe's words are written apart from the services' (IdParam's table): a well-formed id that
      // names nothing must get the very same answer, so the two cannot drift. Bodiless routes with one
      // id only: elsewhere the body is checked first, or another id is looked up first.
      const ids = op.pathParams.filter((name) => name !== 'institutionId');
      if (op.hasBody || ids.length !== 1) continue;
      const unknown = await caller.call(op.method, op.path.replace(`{${ids[0]}}`, randomUUID()));
      expect({ route: op.key, status: unknown.status, message: errorMessage(unknown) }).toEqual({
        route: op.key,
        status: 404,
        message: body.error?.message,
      });
      compared += 1;
    }
    expect(compared).toBeGreaterThan(15);
  });

  it.each([
    ['a header without a colon', 'GET /health/live HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n'],
    [
      'two Content-Lengths',
      'POST /admin/merchants HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    ['an unknown HTTP version', 'GET /health/live HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['no Host header', 'GET /health/live HTTP/1.1\r\n\r\n'],
    ['a URL over 16 KB', `GET /health/live?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ])('answers %s with 400 in the envelope', async (_name, payload) => {
    const answer = await rawRequest(api.url, payload);
    const { statusLine, body } = parseRaw(answer);
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
      tracingId: expect.any(String),
    });
  });
});
