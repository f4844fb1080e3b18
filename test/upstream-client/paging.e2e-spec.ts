import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, items, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { clientFor, collect, failure, tinyServer, UpstreamKit } from '../kit/upstream-test-kit.js';
import { USER_PRESENT } from '../kit/user-present.mjs';

// The user present: these walks read one account more often than the bank's daily allowance of reads
// without the user (four) would let them.
const PRESENT = { ipAddress: USER_PRESENT['psu-ip-address'] };

describe('upstream client: paging', () => {
  const kit = new UpstreamKit();
  let client: UpstreamClient;
  let token: string;
  let current: Account;
  let savings: Account;
  /** The file's consent at the sandbox bank, read with the user present. */
  const present = () => ({ consent: token, institutionId: 'sandbox-redirect', psu: PRESENT });

  beforeAll(async () => {
    await kit.start();
    client = kit.client();
    ({ token } = await kit.dataConsent('sandbox-redirect', 'paging-user'));
    const accounts = (await client.data.getAccounts(present())).data;
    current = accounts.find((a) => a.accountType === 'CURRENT')!;
    savings = accounts.find((a) => a.accountType === 'SAVINGS')!;
  });
  afterAll(() => kit.stop());

  describe('offset paging (upstream spec §4.2.1)', () => {
    it('walks 6,500 transactions in seven pages with no limit: offset 6000 returns records 6001-6500', async () => {
      const pages = await collect(client.data.transactionPages(current.id, {}, present()));
      expect(pages.map((p) => p.data.length)).toEqual([1000, 1000, 1000, 1000, 1000, 1000, 500]);
      expect(pages.map((p) => p.meta.pagination?.self?.offset)).toEqual([
        0, 1000, 2000, 3000, 4000, 5000, 6000,
      ]);
      expect(pages.every((p) => typeof p.tracingId === 'string')).toBe(true);
      const ids = new Set(pages.flatMap((p) => p.data.map((t) => t.id)));
      expect(ids.size).toBe(6500);
    });

    it('walks 467 records with limit=50: offset=450 returns records 451-467', async () => {
      const pages = await collect(client.data.transactionPages(savings.id, { limit: 50 }, present()));
      expect(pages).toHaveLength(10);
      expect(pages.at(-1)!.meta.pagination?.self?.offset).toBe(450);
      expect(pages.at(-1)!.data).toHaveLength(17);
      const all = pages.flatMap((p) => p.data.map((t) => t.id));
      expect(new Set(all).size).toBe(467);
    });

    it('starts from a given offset and flattens into records', async () => {
      let n = 0;
      for await (const tx of items(
        client.data.transactionPages(current.id, { offset: 6200, limit: 100 }, present()),
      )) {
        expect(tx.id).toEqual(expect.any(String));
        n += 1;
      }
      expect(n).toBe(300);
    });

    it('makes one request for an empty list (credit card) and for a window smaller than a page', async () => {
      const accounts = (await client.data.getAccounts(present())).data;
      const card = accounts.find((a) => a.accountType === 'CREDIT_CARD')!;
      const pages = await collect(client.data.transactionPages(card.id, {}, present()));
      expect(pages).toHaveLength(1);
      expect(pages[0].data).toEqual([]);
    });

    it('pages statements and consents by the same rules', async () => {
      const statements = await collect(
        items(client.data.statementPages(current.id, { limit: 5 }, present())),
      );
      expect(statements).toHaveLength(24);
      for (let i = 0; i < 3; i += 1) await kit.dataConsent('sandbox-redirect', 'paging-user');
      const consents = await collect(
        items(client.consents.pages({ applicationUserId: 'paging-user', limit: 2 })),
      );
      expect(consents.length).toBeGreaterThanOrEqual(4);
      expect(new Set(consents.map((c) => c.id)).size).toBe(consents.length);
    });

    it('never loops forever on a server that always answers full pages with a growing totalCount', async () => {
      const server = await tinyServer((req, res, n) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const data = Array.from({ length: 10 }, (_, i) => ({ id: `${n}-${i}` }));
        res.end(
          JSON.stringify({
            meta: {
              tracingId: `t${n}`,
              pagination: { totalCount: 1_000_000 + n * 100, self: { limit: 10 } },
            },
            data,
          }),
        );
      });
      const bad = clientFor(server.url);
      try {
        let pages = 0;
        const error = await failure<UpstreamError>(async () => {
          for await (const _page of bad.data.transactionPages(
            'acc',
            { limit: 10 },
            { consent: 'c', institutionId: 'tiny', maxPages: 25 },
          ))
            pages += 1;
        });
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error.kind).toBe('PROTOCOL');
        expect(pages).toBe(25);
        expect(server.requests).toHaveLength(25);
      } finally {
        await bad.close();
        await server.close();
      }
    });

    it('stops at the first-page totalCount even if later pages claim more, and ignores links.next', async () => {
      const server = await tinyServer((req, res, n) => {
        const offset = Number(new URL(req.url!, 'http://x').searchParams.get('offset'));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            meta: {
              tracingId: `t${n}`,
              pagination: {
                totalCount: n === 1 ? 30 : 99_999,
                self: { limit: 10, offset },
                next: { offset: 0 },
              },
            },
            data: Array.from({ length: 10 }, (_, i) => ({ id: `${offset + i}` })),
            links: { next: 'http://elsewhere.invalid/accounts/acc/transactions?offset=0' },
          }),
        );
      });
      const bad = clientFor(server.url);
      try {
        const offsets = (
          await collect(
            bad.data.transactionPages('acc', { limit: 10 }, { consent: 'c', institutionId: 'tiny' }),
          )
        ).map((page) => page.meta.pagination?.self?.offset);
        expect(offsets).toEqual([0, 10, 20]);
      } finally {
        await bad.close();
        await server.close();
      }
    });
  });

  describe('cursor paging (real-time transactions)', () => {
    it('follows links.next from the first page (self/next/last) to the final page (first/prev/self)', async () => {
      const pages = await collect(client.data.realTimeTransactionPages(current.id, {}, present()));
      expect(pages.length).toBe(Math.ceil(6500 / 250));
      expect(Object.keys(pages[0].links!).sort()).toEqual(['last', 'next', 'self']);
      expect(Object.keys(pages[1].links!).sort()).toEqual(['first', 'last', 'next', 'prev', 'self']);
      expect(Object.keys(pages.at(-1)!.links!).sort()).toEqual(['first', 'prev', 'self']);
      expect(pages.every((p) => p.meta.count === p.data.length)).toBe(true);
      const ids = new Set(pages.flatMap((p) => p.data.map((t) => t.id)));
      expect(ids.size).toBe(6500);
    });

    it('sends from/before on the first request only', async () => {
      const before = new Date().toISOString();
      const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
      const all = await collect(
        items(client.data.realTimeTransactionPages(current.id, { from, before }, present())),
      );
      expect(all.length).toBeGreaterThan(0);
      expect(all.length).toBeLessThan(6500);
    });

    it('ends with a PROTOCOL error when a server repeats a cursor, and never follows the link host', async () => {
      const server = await tinyServer((req, res, n) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            meta: { tracingId: `t${n}`, count: 1 },
            data: [{ id: String(n) }],
            links: { self: 'x', next: `http://evil.invalid/steal?cursor=${n >= 2 ? 'same' : 'c' + n}` },
          }),
        );
      });
      const bad = clientFor(server.url);
      try {
        const error = await failure<UpstreamError>(async () => {
          for await (const _p of bad.data.realTimeTransactionPages(
            'acc',
            {},
            { consent: 'c', institutionId: 'tiny' },
          ))
            void _p;
        });
        expect(error.kind).toBe('PROTOCOL');
        expect(server.requests.map((r) => r.url)).toEqual([
          '/accounts/acc/real-time/transactions',
          '/accounts/acc/real-time/transactions?cursor=c1',
          '/accounts/acc/real-time/transactions?cursor=same',
        ]);
      } finally {
        await bad.close();
        await server.close();
      }
    });
  });

  describe('one real-time page (getRealTimeTransactions)', () => {
    it("answers the sandbox's first page: the same records, count and links as the walk's", async () => {
      const options = present();
      const page = await client.data.getRealTimeTransactions(current.id, {}, options);
      const walked = (await client.data.realTimeTransactionPages(current.id, {}, options).next()).value!;
      expect(page.data).toEqual(walked.data);
      expect(page.links).toEqual(walked.links);
      expect(page.meta.count).toBe(page.data.length);
    });

    it('parses a body in another layout, and refuses one that is not JSON as PROTOCOL', async () => {
      const records = [{ id: 'r1', transactionAmount: { amount: 1.5, currency: 'GBP' } }];
      const bodies: Record<string, string> = {
        pretty: JSON.stringify({ meta: { count: 1 }, data: records }, null, 2),
        truncated: JSON.stringify({ meta: { count: 1 }, data: records }).slice(0, -2),
        raw_newline: JSON.stringify({ data: [{ id: 'line\nbreak' }] }).replace('\\n', '\n'),
        not_a_list: '{"data":{"id":"r1"}}',
        trailing_comma: '{"data":[{"id":"r1"},]}',
      };
      const server = await tinyServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(bodies[req.url!.split('/')[2]]);
      });
      const other = clientFor(server.url, { retry: { maxRetries: 0 } });
      const get = (name: string) =>
        other.data.getRealTimeTransactions(name, {}, { consent: 'c', institutionId: 'tiny' });
      try {
        expect((await get('pretty')).data).toEqual(records);
        for (const name of ['truncated', 'raw_newline', 'not_a_list', 'trailing_comma']) {
          expect(await failure<UpstreamError>(() => get(name)), name).toMatchObject({
            kind: 'PROTOCOL',
            status: 200,
          });
        }
      } finally {
        await other.close();
        await server.close();
      }
    });
  });

  it('a reset in between changes nothing for a fresh walk', async () => {
    await kit.reset();
    const again = await kit.dataConsent('sandbox-redirect', 'paging-user');
    const first = await client.data.getTransactions(
      current.id,
      { limit: 1 },
      { consent: again.token, institutionId: 'sandbox-redirect' },
    );
    expect(first.data).toHaveLength(1);
  });
});
