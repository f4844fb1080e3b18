import { describe, expect, it } from 'vitest';
import { useSandbox } from '../kit/sandbox-fixture.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Issue 8, defect 3: the sandbox refuses what the upstream's own OpenAPI refuses. */
describe('sandbox: as strict as the upstream on request bodies', () => {
  const { http } = useSandbox();

  it('requires countryCode (and categorisationType) to categorise', async () => {
    const created = await http.admin('POST', '/consents', {
      applicationUserId: 'strict-1',
      institutionId: 'sandbox-redirect',
    });
    const consent = created.body.data.consentToken as string;
    const [account] = (await http.call('GET', '/accounts', { consent })).body.data as { id: string }[];
    const post = (body: unknown) =>
      http.call('POST', `/accounts/${account.id}/transactions/categorisation`, { consent, body });

    const noCountry = await post({ categorisationType: 'consumer' });
    expect(noCountry.status).toBe(400);
    expect(noCountry.body).toEqual({ errors: [{ fieldName: 'countryCode', error: 'MANDATORY' }] });
    const neither = await post({});
    expect(neither.body).toEqual({
      errors: [
        { fieldName: 'categorisationType', error: 'MANDATORY' },
        { fieldName: 'countryCode', error: 'MANDATORY' },
      ],
    });
    expect((await post({ categorisationType: 'consumer', countryCode: 'GB' })).status).toBe(201);
  });

  it('takes JSON-patch values as strings only, and requires op', async () => {
    const user = await http.call('POST', '/users', { body: { applicationUserId: 'strict-2' } });
    const patch = (body: unknown) =>
      http.call('PATCH', `/users/${user.body.uuid}`, { body, contentType: 'application/json-patch+json' });

    const boolean = await patch([{ op: 'replace', path: '/vopOptOut', value: true }]);
    expect(boolean.status).toBe(400);
    expect(boolean.body.error.issues[0].parameter).toBe('[0].value');
    const noOp = await patch([{ path: '/vopOptOut', value: 'true' }]);
    expect(noOp.status).toBe(400);
    expect(noOp.body.error.issues[0].parameter).toBe('[0].op');
    const string = await patch([{ op: 'replace', path: '/vopOptOut', value: 'true' }]);
    expect(string.status).toBe(201);
    expect(string.body.vopOptOut).toBe(true);
  });

  it('answers the webhook routes with a UUID metadata.tracingId', async () => {
    const categories = await http.call('GET', '/webhook/events/categories');
    expect(categories.status).toBe(200);
    expect(categories.body.metadata.tracingId).toMatch(UUID);
    const missing = await http.call('DELETE', '/webhook/events/not-a-uuid');
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toMatch(/"tracingId":"[0-9a-f]{8}-[0-9a-f]{4}-/);
  });
});
