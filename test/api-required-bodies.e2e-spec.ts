import { beforeAll, describe, expect, it } from 'vitest';
import { onboard, sessionToken, type Tenant, useStack } from './kit/index.js';
import {
  documentedOperations,
  type OpenApiDocument,
  type Operation,
  readOpenApiDocument,
  type Schema,
} from './kit/openapi-kit.js';

/**
 * Issue 59, item 2, on every route with a body in /docs-json: a body the document requires is an object,
 * so `null`, or none at all, is 400 naming `body`, never read as `{}`; and a field the document does not
 * declare nullable is 400 naming it when sent as `null`, never read as omitted (a `null` list of upstream
 * categories registered a new upstream webhook at every call).
 */
describe('api: a required body, and fields that are omitted rather than null', () => {
  const stack = useStack({
    overrides: { RATE_LIMIT_PER_MINUTE: '1000000' },
  });
  let tenant: Tenant;
  let document: OpenApiDocument;
  let operations: Operation[];
  let tokens: string[];

  beforeAll(async () => {
    tenant = await onboard(stack);
    document = await readOpenApiDocument(stack.api.url);
    // The upstream's webhook receiver takes any object, and only once its signature checks out.
    operations = documentedOperations(document).filter(
      (o) =>
        o.operation.requestBody?.content?.['application/json'] &&
        o.operation.requestBody.required &&
        o.path !== '/v1/webhooks/upstream',
    );
    tokens = [
      stack.api.config.api.adminToken,
      tenant.merchant.apiKey.key,
      sessionToken(stack.api.config, { merchantId: tenant.merchant.merchant.id, userId: tenant.userId }),
    ];
  });

  // Ids shaped right (so only the body can be wrong): the tenant's user where a user is named.
  const pathOf = (op: Operation) =>
    op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
      name === 'userId' ? tenant.userId : '0190c0de-0000-7000-8000-000000000000',
    );

  /** The answer of the first credential the route takes (anything but 401 and 403). */
  async function send(op: Operation, body: string | undefined) {
    for (const token of op.security.length === 0 ? [undefined] : tokens) {
      const response = await fetch(`${stack.api.url}${pathOf(op)}`, {
        method: op.method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body,
      });
      if (response.status !== 401 && response.status !== 403)
        return { status: response.status, body: (await response.json()) as ErrorAnswer };
    }
    throw new Error(`${op.key}: no credential was taken`);
  }

  type ErrorAnswer = { error?: { code: string; details?: { field: string; issue: string }[] } };

  /** The request body's properties, from its component. */
  function propertiesOf(op: Operation): [string, Schema][] {
    const schema = op.operation.requestBody?.content?.['application/json']?.schema ?? {};
    const ref = (schema.$ref as string | undefined)?.split('/').pop();
    const component = ref ? document.components?.schemas?.[ref] : schema;
    return Object.entries((component?.properties ?? {}) as Record<string, Schema>);
  }

  it('finds the routes with a required JSON body', () => {
    expect(operations.length).toBeGreaterThan(15);
  });

  it('answers a null body, or none, with 400 naming the body on every such route', async () => {
    for (const op of operations) {
      for (const body of ['null', undefined]) {
        const answer = await send(op, body);
        expect(answer.status, `${op.key} with ${body ?? 'no'} body`).toBe(400);
        expect(answer.body.error?.code).toBe('VALIDATION_FAILED');
        if (body === 'null')
          expect(answer.body.error?.details, op.key).toEqual([
            { field: 'body', issue: 'must be a JSON object' },
          ]);
      }
    }
  });

  it('answers a null field the document does not declare nullable with 400 naming it', async () => {
    let checked = 0;
    for (const op of operations) {
      for (const [name, schema] of propertiesOf(op)) {
        if (schema.nullable) continue;
        const answer = await send(op, JSON.stringify({ [name]: null }));
        expect(answer.status, `${op.key} with ${name}: null`).toBe(400);
        const fields = (answer.body.error?.details ?? []).map((d) => d.field);
        expect(fields, `${op.key} with ${name}: null`).toContain(name);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });
});
