import { describe, expect, it } from 'vitest';
import type { DocumentedRoute } from '#libs/upstream-openapi';
import { requestOf, UPSTREAM_ROUTES } from './upstream-routes.js';

// The compiler holds each route to the upstream's document: `npm test` typechecks this file, and each
// `@ts-expect-error` fails that stage if its line ever compiles.

describe('the upstream route table', () => {
  it('compiles a route only with the method and path the document gives its operation', () => {
    const documented: DocumentedRoute<'getAccount'> = { method: 'GET', path: '/accounts/{accountId}' };
    // @ts-expect-error: the document serves getAccounts with GET
    const method: DocumentedRoute<'getAccounts'> = { method: 'POST', path: '/accounts' };
    // @ts-expect-error: the document names this path's id {webhook_id}
    const path: DocumentedRoute<'deleteWebhook'> = { method: 'DELETE', path: '/webhook/events/{webhookId}' };
    expect([documented, method, path].map((r) => r.method)).toEqual(['GET', 'POST', 'DELETE']);
    expect(UPSTREAM_ROUTES.deleteWebhook.path).toBe('/webhook/events/{webhook_id}');
  });

  it("puts each id in its place as one path segment, and refuses a call without one of its route's ids", () => {
    expect(requestOf('deleteWebhook', { ids: { webhook_id: 'wh/1' } }).path).toBe('/webhook/events/wh%2F1');
    expect(() => requestOf('deleteWebhook', { ids: { webhookId: 'wh-1' } })).toThrow(
      'deleteWebhook: no value for {webhook_id} in its path',
    );
  });
});
