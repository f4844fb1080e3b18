import { beforeAll, describe, expect, it } from 'vitest';
import { createBffClient, REVALIDATE_MAX_ENTRIES } from '../libs/merchant-sdk/src/index.js';
import { KeptAnswers } from '../libs/merchant-sdk/src/revalidation.js';
import { connect, onboard, type Stack, type Tenant, uniqueName, useStack } from './kit/index.js';
import { samplesOf, scrape } from './kit/metrics-kit.js';
import { FlakyProxy } from './kit/sdk-kit.js';

/** One request the SDK sent, and what the api answered it. */
interface Exchange {
  method: string;
  path: string;
  ifNoneMatch: string | null;
  status: number;
  etag: string | null;
  requestId: string | null;
}

/** The api's own count of the 304s it has answered. */
async function notModifiedServed(stack: Stack): Promise<number> {
  const samples = samplesOf(await scrape(`${stack.api.url}/metrics`), 'http_requests_total', {
    status: '304',
  });
  return samples.reduce((sum, sample) => sum + sample.value, 0);
}

/**
 * Issue 57: the SDK revalidates when asked to. With `revalidate: true` a read it has an ETag for goes
 * with `If-None-Match`, and the api's 304 is answered with the kept answer (the new request's tracingId
 * in a page); a write is read at once; without the option nothing changes. Against a real api: the
 * client's fetch only records what went out and what came back.
 */
describe('merchant SDK: revalidation of the hot reads', () => {
  const stack = useStack({ ownDatabase: 'sdk_revalidate', overrides: { LOG_LEVEL: 'silent' } });
  let tenant: Tenant;
  let accountId: string;
  let consentId: string;

  beforeAll(async () => {
    tenant = await onboard(stack);
    consentId = await connect(stack, tenant);
    const bff = createBffClient({ baseUrl: stack.api.url, token: tenant.merchant.apiKey.key });
    [{ id: accountId }] = await bff.accounts.list(tenant.userId).toArray();
  });

  /** A client of the tenant's key (or `baseUrl`), and every exchange it has had. */
  function recorded(options: { revalidate?: boolean; baseUrl?: string } = {}) {
    const exchanges: Exchange[] = [];
    const bff = createBffClient({
      baseUrl: options.baseUrl ?? stack.api.url,
      token: tenant.merchant.apiKey.key,
      revalidate: options.revalidate,
      fetch: async (request, init) => {
        const response = await fetch(request, init);
        const url = new URL(request.url);
        exchanges.push({
          method: request.method,
          path: `${url.pathname}${url.search}`,
          ifNoneMatch: request.headers.get('if-none-match'),
          status: response.status,
          etag: response.headers.get('etag'),
          requestId: response.headers.get('x-request-id'),
        });
        return response;
      },
    });
    return { bff, exchanges };
  }

  const hotReads = (bff: ReturnType<typeof createBffClient>) => ({
    accounts: () => bff.accounts.list(tenant.userId).page(),
    account: () => bff.accounts.get(accountId),
    users: () => bff.users.list({ limit: 100 }).page(),
    user: () => bff.users.get(tenant.userId),
    transactions: () => bff.transactions(accountId, { limit: 5 }).page(),
    consents: () => bff.consents.list(tenant.userId).page(),
    consent: () => bff.consents.get(consentId),
  });

  it('sends the kept ETag, and answers the 304 with the first answer and the new tracingId', async () => {
    const { bff, exchanges } = recorded({ revalidate: true });
    const before = await notModifiedServed(stack);
    for (const [name, read] of Object.entries(hotReads(bff))) {
      const first = await read();
      const [sent] = exchanges.splice(0);
      expect(sent, name).toMatchObject({ method: 'GET', ifNoneMatch: null, status: 200 });
      expect(sent.etag, name).toMatch(/^"[\w-]{27}"$/);

      const second = await read();
      const [conditional, ...more] = exchanges.splice(0);
      expect(more, name).toEqual([]);
      expect(conditional, name).toMatchObject({ path: sent.path, ifNoneMatch: sent.etag, status: 304 });
      if ('tracingId' in first && 'tracingId' in second) {
        // A page says its tracingId: the 304's, not the kept answer's.
        expect(second.tracingId, name).toBe(conditional.requestId);
        expect(second.tracingId, name).not.toBe(first.tracingId);
        expect({ ...second, tracingId: 'x' }, name).toEqual({ ...first, tracingId: 'x' });
      } else {
        expect(second, name).toEqual(first);
      }
    }
    // The api's own count: it answered those seven reads with 304 and no body.
    expect((await notModifiedServed(stack)) - before).toBe(7);
  });

  it('hands out a copy: changing an answer does not change the next', async () => {
    const { bff, exchanges } = recorded({ revalidate: true });
    const first = await bff.users.get(tenant.userId);
    const kept = structuredClone(first);
    first.reference = 'changed by the caller';
    const second = await bff.users.get(tenant.userId);
    expect(second).toEqual(kept);
    second.reference = 'changed again';
    expect(await bff.users.get(tenant.userId)).toEqual(kept);
    expect(exchanges.map((exchange) => exchange.status)).toEqual([200, 304, 304]);
  });

  it('reads a write at once: a renamed user, in the user and in the list', async () => {
    const { bff, exchanges } = recorded({ revalidate: true });
    const user = await bff.users.get(tenant.userId);
    const list = await bff.users.list({ limit: 100 }).page();
    expect(await bff.users.get(tenant.userId)).toEqual(user);
    expect(exchanges.map((exchange) => exchange.status)).toEqual([200, 200, 304]);

    const reference = uniqueName('renamed');
    const renamed = await bff.users.update(tenant.userId, { reference });
    expect(renamed.reference).toBe(reference);
    exchanges.splice(0);

    expect(await bff.users.get(tenant.userId)).toEqual(renamed);
    const relisted = await bff.users.list({ limit: 100 }).page();
    expect(relisted.items.find((item) => item.id === tenant.userId)?.reference).toBe(reference);
    expect(relisted.items).not.toEqual(list.items);
    // Both went with the old tag, and the api answered the new data.
    expect(exchanges.map(({ ifNoneMatch, status }) => ({ tagged: ifNoneMatch !== null, status }))).toEqual([
      { tagged: true, status: 200 },
      { tagged: true, status: 200 },
    ]);
    // And the new answer is the one kept.
    expect(await bff.users.get(tenant.userId)).toEqual(renamed);
    expect(exchanges.at(-1)).toMatchObject({ status: 304, ifNoneMatch: exchanges[0].etag });
  });

  it('sends no If-None-Match without the option, nor through raw with it', async () => {
    const off = recorded();
    for (const read of Object.values(hotReads(off.bff))) {
      await read();
      await read();
    }
    expect(off.exchanges).toHaveLength(14);
    for (const exchange of off.exchanges) expect(exchange).toMatchObject({ ifNoneMatch: null, status: 200 });

    const on = recorded({ revalidate: true });
    await on.bff.users.get(tenant.userId);
    const path = { params: { path: { userId: tenant.userId } } };
    const raw = await on.bff.raw.GET('/v1/users/{userId}', path);
    expect(raw.response.status).toBe(200);
    expect(raw.data?.data.id).toBe(tenant.userId);
    expect(on.exchanges.map((exchange) => exchange.ifNoneMatch)).toEqual([null, null]);
  });

  it('never makes a 304 it has no answer for into data: it asks again without the tag', async () => {
    // In front of the api, a proxy answers the conditional read a 304 of another tag, as a cache
    // between them might: the SDK has no answer for that tag.
    const proxy = await new FlakyProxy(stack.api.url, (request) =>
      request.headers['if-none-match']
        ? { answer: { status: 304, headers: { etag: '"other"' } } }
        : undefined,
    ).start();
    try {
      const { bff, exchanges } = recorded({ revalidate: true, baseUrl: proxy.url });
      const first = await bff.users.get(tenant.userId);
      expect(await bff.users.get(tenant.userId)).toEqual(first);
      expect(exchanges.map(({ ifNoneMatch, status }) => [ifNoneMatch !== null, status])).toEqual([
        [false, 200],
        [true, 304],
        [false, 200],
      ]);
      expect(proxy.records.map((record) => record.upstreamStatus)).toEqual([200, undefined, 200]);
    } finally {
      await proxy.stop();
    }
  });

  it('keeps at most REVALIDATE_MAX_ENTRIES answers, the least recently used going first', () => {
    expect(REVALIDATE_MAX_ENTRIES).toBe(500);
    const kept = new KeptAnswers(3);
    for (const key of ['a', 'b', 'c']) kept.set(key, { etag: `"${key}"`, answer: key });
    kept.get('a');
    kept.set('d', { etag: '"d"', answer: 'd' });
    expect(kept.size).toBe(3);
    expect(kept.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((key) => kept.get(key)?.answer)).toEqual(['a', 'c', 'd']);
  });
});
