import { describe, expect, it } from 'vitest';
import { useSandbox } from './kit/sandbox-fixture.js';

describe('sandbox: boots and answers on its port', () => {
  const { http } = useSandbox();

  it('answers its health route and its root', async () => {
    expect((await http.call('GET', '/health', { auth: 'none' })).status).toBe(200);
    const root = await http.call<{ data: { service: string } }>('GET', '/', { auth: 'none' });
    expect(root.body.data.service).toContain('sandbox');
  });

  it('answers errors in the upstream standard error shape, not the BFF envelope', async () => {
    const response = await http.call<{ error: Record<string, unknown> }>('GET', '/no-such-route', {
      auth: 'none',
    });
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND', source: 'YAPILY' });
    expect(response.body.error.tracingId).toEqual(expect.any(String));
  });
});
