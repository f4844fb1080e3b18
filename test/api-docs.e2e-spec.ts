import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTH_METADATA, AuthKind, SECURITY_SCHEMES } from '#libs/http';
import { type Stack, useStack } from './kit/index.js';

type Api = Stack['api'];
interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

const SCHEME_OF: Record<string, string> = {
  [AuthKind.Operator]: SECURITY_SCHEMES.operator,
  [AuthKind.Merchant]: SECURITY_SCHEMES.merchant,
  [AuthKind.UserSession]: SECURITY_SCHEMES.userSession,
};

/** Every route of the app as `METHOD /path/{param}` with its declared kinds, read from Nest's metadata. */
function routesOf(api: Api): { method: string; path: string; kinds: string[] }[] {
  const discovery = api.app.get(DiscoveryService);
  const scanner = api.app.get(MetadataScanner);
  const reflector = api.app.get(Reflector);
  const routes: { method: string; path: string; kinds: string[] }[] = [];
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const base = String(Reflect.getMetadata('path', instance.constructor) ?? '');
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as () => unknown;
      const sub = Reflect.getMetadata('path', handler) as string | undefined;
      if (sub === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata('method', handler) as number].toLowerCase();
      const path = `/${[base, sub]
        .map((s) => s.replace(/^\/|\/$/g, ''))
        .filter(Boolean)
        .join('/')}`.replace(/:([A-Za-z]+)/g, '{$1}');
      const kinds =
        reflector.getAllAndOverride<string[]>(AUTH_METADATA, [handler, instance.constructor]) ?? [];
      routes.push({ method, path, kinds });
    }
  }
  return routes;
}

describe('api: OpenAPI document at /docs and /docs-json', () => {
  const stack = useStack();
  let document: Document;

  beforeAll(async () => {
    const response = await stack.anonymous.get<Document>('/docs-json');
    expect(response.status).toBe(200);
    document = response.body;
  });

  it('serves Swagger UI without credentials', async () => {
    const response = await stack.anonymous.get<string>('/docs');
    expect(response.status).toBe(200);
    expect(response.body).toContain('swagger');
  });

  /** Error answers that are HTML pages for a browser (method, path, status), each declared as such. */
  const BROWSER_PAGES = new Set(['get /v1/callbacks/consents 503']);

  it('documents every route with its security and the error envelope', () => {
    const routes = routesOf(stack.api);
    expect(routes.length).toBeGreaterThanOrEqual(9);
    for (const route of routes) {
      const operation = document.paths[route.path]?.[route.method];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      if (!operation) continue;
      const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s)).sort();
      const expected = route.kinds.flatMap((k) => (SCHEME_OF[k] ? [SCHEME_OF[k]] : [])).sort();
      expect(schemes, `${route.method} ${route.path}`).toEqual(expected);
      const errors = Object.entries(operation.responses).filter(
        ([status]) => status === 'default' || Number(status) >= 400,
      );
      expect(errors.length, `${route.method} ${route.path}`).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        // A person's browser, not a program, reads the bank callback's outage answer: a page.
        if (BROWSER_PAGES.has(`${route.method} ${route.path} ${status}`)) {
          expect(Object.keys(response.content ?? {})).toEqual(['text/html']);
          continue;
        }
        expect(response.content?.['application/json']?.schema?.$ref, `${route.method} ${route.path}`).toBe(
          '#/components/schemas/ApiErrorResponse',
        );
      }
    }
  });

  /**
   * A user session is the end customer's browser: it may reach only what is about that one customer (a
   * route naming one of their things, whose owner the service checks) or what names nobody's data.
   * Merchant-wide reads (lists across users, insights, endpoints) stay with the merchant's key.
   */
  const OWNED_BY_A_USER = /\{(userId|accountId|consentId|paymentId|syncId)\}/;
  const ABOUT_NOBODY = new Set([
    'get /v1/me',
    'get /v1/institutions',
    'get /v1/institutions/{institutionId}',
    // A step of the customer's own attempt to connect a bank: filed, and nothing answered back.
    'post /v1/connect-funnel/reports',
  ]);

  it("opens user sessions only to routes about one of the user's things", () => {
    const routes = routesOf(stack.api).filter((r) => r.kinds.includes(AuthKind.UserSession));
    expect(routes.length).toBeGreaterThan(ABOUT_NOBODY.size);
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      expect(OWNED_BY_A_USER.test(route.path) || ABOUT_NOBODY.has(key), key).toBe(true);
    }
  });

  it('declares the three bearer schemes and the shared schemas', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(
      Object.values(SECURITY_SCHEMES).sort(),
    );
    for (const schema of [
      'ApiErrorResponse',
      'CreateMerchantInput',
      'CreatedMerchantOutputEnvelope',
      'MerchantOutputListEnvelope',
    ]) {
      expect(document.components.schemas, schema).toHaveProperty(schema);
    }
    const rotate = document.paths['/admin/merchants/{id}/api-keys']?.post as unknown as {
      parameters: { name: string }[];
    };
    expect(rotate.parameters.map((p) => p.name)).toContain('Idempotency-Key');
  });
});
