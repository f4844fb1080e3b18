import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningHttpApp } from './support/running-apps.js';

describe('sandbox: boots and answers on its port', () => {
  let sandbox: RunningHttpApp;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('answers its health route and its root', async () => {
    expect((await fetch(`${sandbox.url}/health`)).status).toBe(200);
    const root = (await (await fetch(`${sandbox.url}/`)).json()) as { data: { service: string } };
    expect(root.data.service).toContain('sandbox');
  });

  it('answers errors in the upstream standard error shape, not the BFF envelope', async () => {
    const response = await fetch(`${sandbox.url}/no-such-route`);
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND', source: 'YAPILY' });
    expect(body.error.tracingId).toEqual(expect.any(String));
  });
});
