import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paymentRequest, type RunningHttpApp, SandboxHttp, startSandbox, testConfig } from '../kit/index.js';

/**
 * Issue 8, defect 10: with SANDBOX_DATA_DIR the sandbox keeps what it had across a restart (users without
 * a consent, revocations, payments, webhooks, the clock), and a reset clears it for good.
 */
describe('sandbox: durable state across restarts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-'));
  const config = testConfig({ SANDBOX_DATA_DIR: dir });
  let running: RunningHttpApp | undefined;
  const http = new SandboxHttp(() => running!.url, config);

  const restart = async () => {
    await running?.close();
    running = await startSandbox(config);
  };

  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps users, revocations, payments, webhooks and the clock, and a reset clears them', async () => {
    running = await startSandbox(config);
    const user = await http.call('POST', '/users', { body: { applicationUserId: 'durable-user' } });
    expect(user.status).toBe(201);

    const revoked = await http.admin('POST', '/consents', {
      applicationUserId: 'durable-user',
      institutionId: 'sandbox-redirect',
    });
    const revokedToken = revoked.body.data.consentToken as string;
    expect((await http.call('DELETE', `/consents/${revoked.body.data.id}`)).status).toBe(200);
    expect((await http.call('GET', '/accounts', { consent: revokedToken })).status).toBe(403);

    const auth = await http.call('POST', '/payment-auth-requests', {
      body: {
        institutionId: 'sandbox-payments',
        applicationUserId: 'durable-user',
        paymentRequest: paymentRequest('durable-pay-1'),
      },
    });
    const paymentToken = (await http.admin('POST', `/consents/${auth.body.data.id}/authorise`)).body.data
      .consentToken as string;
    const payment = await http.call('POST', '/payments', {
      consent: paymentToken,
      body: paymentRequest('durable-pay-1'),
    });
    expect(payment.status).toBe(201);

    const webhook = await http.call('POST', '/webhook/events', {
      body: {
        applicationId: config.upstream.applicationId,
        categories: ['payment.state.success'],
        callbackUrl: { main: { url: 'https://merchant.example/hooks' } },
      },
    });
    expect(webhook.status).toBe(201);
    expect((await http.admin('POST', '/clock/advance', { days: 3 })).status).toBe(200);
    const offsetBefore = (await http.admin('GET', '/clock')).body.data.offsetMs as number;
    expect(offsetBefore).toBeGreaterThan(0);

    await restart();

    const users = await http.call('GET', '/users?filter[applicationUserId]=durable-user');
    expect(users.body.map((u: { uuid: string }) => u.uuid)).toEqual([user.body.uuid]);
    // A consent revoked before the restart stays revoked after it.
    expect((await http.call('GET', '/accounts', { consent: revokedToken })).status).toBe(403);
    const details = await http.call('GET', `/payments/${payment.body.data.id}/details`, {
      consent: paymentToken,
    });
    expect(details.status).toBe(200);
    // The consent was consumed by the payment before the restart: it still is.
    const again = await http.call('POST', '/payments', {
      consent: paymentToken,
      body: paymentRequest('durable-pay-2'),
    });
    expect(again.status).toBe(403);
    const hooks = await http.call('GET', '/webhook/events');
    expect(JSON.stringify(hooks.body)).toContain(webhook.body.data.id);
    expect((await http.admin('GET', '/clock')).body.data.offsetMs).toBe(offsetBefore);

    const file = join(dir, 'state.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    expect((await http.admin('POST', '/reset')).status).toBe(200);
    await restart();
    expect((await http.call('GET', '/users?filter[applicationUserId]=durable-user')).body).toEqual([]);
    expect(JSON.stringify((await http.call('GET', '/webhook/events')).body)).not.toContain(
      webhook.body.data.id,
    );
  });

  it('refuses to boot on a state file it cannot read, naming the file', async () => {
    await running?.close();
    running = undefined;
    const file = join(dir, 'state.json');
    const kept = readFileSync(file, 'utf8');
    writeFileSync(file, '{"version": 99, "parts": {}}');
    await expect(startSandbox(config)).rejects.toThrow(file);
    writeFileSync(file, '{not json');
    await expect(startSandbox(config)).rejects.toThrow(/not readable JSON/);
    writeFileSync(file, kept);
    running = await startSandbox(config);
  });
});
