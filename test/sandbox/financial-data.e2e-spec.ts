import { describe, expect, it } from 'vitest';
import { SEEDED_SUB_APPLICATIONS } from '../../apps/sandbox/src/core/index.js';
import { testConfig, USER_PRESENT } from '../kit/index.js';
import { useSandbox } from '../kit/sandbox-fixture.js';

const DAY = 86_400_000;

describe('sandbox: financial data', () => {
  const { http } = useSandbox();
  const publicUrl = testConfig().sandbox.publicUrl;

  async function createConsent(
    applicationUserId: string,
    institutionId = 'sandbox-redirect',
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; consentToken: string; userUuid: string }> {
    const response = await http.admin('POST', '/consents', { applicationUserId, institutionId, ...extra });
    expect(response.status).toBe(201);
    expect(response.body.data.status).toBe('AUTHORIZED');
    return response.body.data;
  }

  // The user present: these tests read an account more often than the bank's daily allowance of reads
  // without the user (four) would let them; the allowance's own test reads without it.
  const get = (path: string, consent?: string, options: { v2?: boolean } = {}) =>
    http.call('GET', path, { consent, headers: USER_PRESENT, ...options });

  async function accountsOf(token: string) {
    const response = await get('/accounts', token);
    expect(response.status).toBe(200);
    const byType = (t: string) => response.body.data.find((a: any) => a.accountType === t);
    return {
      all: response.body.data,
      current: byType('CURRENT'),
      savings: byType('SAVINGS'),
      card: byType('CREDIT_CARD'),
    };
  }

  /**
   * A client following upstream spec §4.2.1 rule 3 literally: request; while totalCount exceeds self.limit, repeat
   * with offset increased by self.limit. The cap turns a paging bug into a failure instead of a hang.
   */
  async function rule3(token: string, path: string, query = '') {
    const records: any[] = [];
    const totalCounts: number[] = [];
    let offset = 0;
    for (let requests = 0; requests < 50; requests += 1) {
      const separator = query ? '&' : '';
      const page = await get(`${path}?${query}${separator}offset=${offset}`, token);
      expect(page.status).toBe(200);
      records.push(...page.body.data);
      const { totalCount, self } = page.body.meta.pagination;
      totalCounts.push(totalCount);
      expect(self.offset).toBe(offset);
      if (totalCount <= self.limit) return { records, totalCounts };
      offset += self.limit;
    }
    throw new Error(`rule 3 did not stop after 50 requests for ${path}?${query}`);
  }

  /** Every transaction of an account through offset paging, in the given order. */
  async function allTransactions(token: string, accountId: string, sort = '-date') {
    return (await rule3(token, `/accounts/${accountId}/transactions`, `sort=${sort}`)).records;
  }

  /** The path and query of an upstream link, to follow it on the sandbox's real port. */
  const follow = (link: string) => link.replace(publicUrl, '');

  const expectIssue = (response: any, status: number, parameter: string) => {
    expect(response.status).toBe(status);
    expect(response.body.error).toMatchObject({ code: status, source: 'YAPILY' });
    expect(response.body.error.issues).toContainEqual(
      expect.objectContaining({
        type: 'INVALID_REQUEST',
        code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
        parameter,
      }),
    );
  };

  it('shows three accounts: 6,500 booked transactions on the current account, 467 on savings, none on the card', async () => {
    const { consentToken } = await createConsent('alice');
    const { all, current, savings, card } = await accountsOf(consentToken);
    expect(all).toHaveLength(3);
    expect(current).toMatchObject({ currency: 'GBP', usageType: 'PERSONAL', type: 'Personal - Current' });
    expect(current.accountIdentifications.map((i: any) => i.type)).toEqual(['SORT_CODE', 'ACCOUNT_NUMBER']);

    const first = await get(`/accounts/${current.id}/transactions`, consentToken);
    // self is FilterAndSort, next is the spec's Next {from, before, limit, cursor}: no sort, no offset.
    expect(first.body.meta.pagination).toEqual({
      totalCount: 6500,
      self: { limit: 1000, sort: '-date', offset: 0 },
      next: { limit: 1000 },
    });
    expect(first.body.meta.count).toBe(1000);
    expect(first.body.links).toEqual({
      self: `${publicUrl}/accounts/${current.id}/transactions?from&before&limit=1000&sort=-date&offset=0&cursor`,
    });
    expect(
      (await get(`/accounts/${savings.id}/transactions`, consentToken)).body.meta.pagination.totalCount,
    ).toBe(467);
    const cardPage = await get(`/accounts/${card.id}/transactions`, consentToken);
    expect(cardPage.body).toMatchObject({ data: [], meta: { count: 0 } });
    expect(cardPage.body.meta.pagination).toEqual({
      totalCount: 0,
      self: { limit: 1000, sort: '-date', offset: 0 },
    });

    const all6500 = await allTransactions(consentToken, current.id);
    expect(all6500).toHaveLength(6500);
    expect(new Set(all6500.map((t) => t.id)).size).toBe(6500);
    expect(all6500.every((t) => t.status === 'BOOKED')).toBe(true);
    const startOfToday = Math.floor(Date.now() / DAY) * DAY;
    const times = all6500.map((t) => Date.parse(t.date));
    expect(Math.max(...times)).toBeLessThan(startOfToday);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(startOfToday - 730 * DAY);
    expect(times.every((t, i) => i === 0 || t <= times[i - 1])).toBe(true);

    // Two decimals, both signs, and a running balance ending at the account's booked balances.
    const minor = (n: number) => Math.round(n * 100);
    expect(all6500.every((t) => Math.abs(t.amount * 100 - minor(t.amount)) < 1e-6)).toBe(true);
    expect(all6500.some((t) => t.amount > 0) && all6500.some((t) => t.amount < 0)).toBe(true);
    for (let i = 0; i < all6500.length - 1; i += 1) {
      expect(minor(all6500[i].balance.balanceAmount.amount)).toBe(
        minor(all6500[i + 1].balance.balanceAmount.amount) + minor(all6500[i].amount),
      );
    }
    const closing = current.accountBalances.find((b: any) => b.type === 'CLOSING_AVAILABLE');
    const interimBooked = current.accountBalances.find((b: any) => b.type === 'INTERIM_BOOKED');
    expect(all6500[0].balance).toEqual({ type: 'CLOSING_AVAILABLE', balanceAmount: closing.balanceAmount });
    expect(interimBooked.balanceAmount).toEqual(closing.balanceAmount);
    expect(all6500[0]).toMatchObject({
      currency: 'GBP',
      transactionAmount: { amount: all6500[0].amount, currency: 'GBP' },
      transactionInformation: [all6500[0].description],
      proprietaryBankTransactionCode: { issuer: 'sandbox-redirect' },
      transactionMutability: 'Immutable',
    });
    expect(all6500[0].isoBankTransactionCode.domainCode.code).toMatch(/^[A-Z]{4}$/);

    const one = await get(`/accounts/${current.id}`, consentToken);
    const withoutTimes = (account: any) => ({
      ...account,
      accountBalances: account.accountBalances.map(({ dateTime: _t, ...b }: any) => b),
    });
    expect(withoutTimes(one.body.data)).toEqual(withoutTimes(current));
    const balances = await get(`/accounts/${current.id}/balances`, consentToken);
    expect(balances.body.data.balances.map((b: any) => b.type)).toContain('CLOSING_AVAILABLE');
    expect(balances.body.data.mainBalanceAmount).toEqual(closing.balanceAmount);
  });

  it('gives the same user the same data after a reset, and another user other data', async () => {
    const before = await createConsent('bob');
    const accountsBefore = await accountsOf(before.consentToken);
    const pageBefore = await get(
      `/accounts/${accountsBefore.current.id}/transactions?limit=20`,
      before.consentToken,
    );

    await http.admin('POST', '/reset');
    const after = await createConsent('bob');
    expect(after.userUuid).not.toBe(before.userUuid);
    const accountsAfter = await accountsOf(after.consentToken);
    expect(accountsAfter.all.map((a: any) => a.id)).toEqual(accountsBefore.all.map((a: any) => a.id));
    const pageAfter = await get(
      `/accounts/${accountsAfter.current.id}/transactions?limit=20`,
      after.consentToken,
    );
    expect(pageAfter.body.data).toEqual(pageBefore.body.data);

    const other = await accountsOf((await createConsent('carol')).consentToken);
    expect(other.current.id).not.toBe(accountsBefore.current.id);
    const elsewhere = await accountsOf((await createConsent('bob', 'sandbox-embedded')).consentToken);
    expect(elsewhere.current.id).not.toBe(accountsBefore.current.id);

    // Another user's account is not under this consent.
    expect((await get(`/accounts/${other.current.id}/transactions`, after.consentToken)).status).toBe(404);
    expect((await get(`/accounts/no-such-account`, after.consentToken)).status).toBe(404);
  });

  it('pages with offsets exactly as the worked examples say', async () => {
    const { consentToken } = await createConsent('dave');
    const { current, savings } = await accountsOf(consentToken);
    const descending = await allTransactions(consentToken, current.id);
    const ascending = await allTransactions(consentToken, current.id, 'date');
    expect(ascending.map((t) => t.id)).toEqual(descending.map((t) => t.id).reverse());

    // totalCount counts the records from the offset on (rule 1), so rule 3 stops at the last page.
    const second = await get(`/accounts/${current.id}/transactions?offset=1000`, consentToken);
    expect(second.body.data.map((t: any) => t.id)).toEqual(descending.slice(1000, 2000).map((t) => t.id));
    expect(second.body.meta).toMatchObject({ count: 1000, pagination: { totalCount: 5500 } });
    expect(second.body.meta.pagination.next).toEqual({ limit: 1000 });
    const probe = await get(`/accounts/${current.id}/transactions?offset=1000&limit=1`, consentToken);
    expect(probe.body.data[0].id).toBe(descending[1000].id);
    expect(probe.body.meta.pagination.totalCount).toBe(5500);
    const last = await get(`/accounts/${current.id}/transactions?offset=6000`, consentToken);
    expect(last.body.data.map((t: any) => t.id)).toEqual(descending.slice(6000).map((t) => t.id));
    expect(last.body.meta).toMatchObject({ count: 500, pagination: { totalCount: 500 } });
    expect(last.body.meta.pagination.next).toBeUndefined();
    expect(Object.keys(last.body.links)).toEqual(['self']);
    const beyond = await get(`/accounts/${current.id}/transactions?offset=7000`, consentToken);
    expect(beyond.body.meta).toMatchObject({ count: 0, pagination: { totalCount: 0 } });

    const savingsAll = await allTransactions(consentToken, savings.id);
    const tail = await get(`/accounts/${savings.id}/transactions?limit=50&offset=450`, consentToken);
    expect(tail.body.data.map((t: any) => t.id)).toEqual(savingsAll.slice(450).map((t) => t.id));
    expect(tail.body.meta).toMatchObject({
      count: 17,
      pagination: { totalCount: 17, self: { limit: 50, sort: '-date', offset: 450 } },
    });
    expect(tail.body.meta.pagination.next).toBeUndefined();
    const beforeTail = await get(`/accounts/${savings.id}/transactions?limit=50&offset=400`, consentToken);
    expect(beforeTail.body.meta.pagination).toEqual({
      totalCount: 67,
      self: { limit: 50, sort: '-date', offset: 400 },
      next: { limit: 50 },
    });
  });

  it('lets a client that follows rule 3 literally visit every record exactly once, then stop', async () => {
    const { consentToken } = await createConsent('dora');
    const { current, savings, card } = await accountsOf(consentToken);

    const big = await rule3(consentToken, `/accounts/${current.id}/transactions`);
    expect(big.totalCounts).toEqual([6500, 5500, 4500, 3500, 2500, 1500, 500]);
    expect(big.records).toHaveLength(6500);
    expect(new Set(big.records.map((t) => t.id)).size).toBe(6500);

    const small = await rule3(consentToken, `/accounts/${savings.id}/transactions`, 'limit=50');
    expect(small.totalCounts).toEqual([467, 417, 367, 317, 267, 217, 167, 117, 67, 17]);
    expect(small.records).toHaveLength(467);
    expect(new Set(small.records.map((t) => t.id)).size).toBe(467);
    const ascending = await rule3(consentToken, `/accounts/${savings.id}/transactions`, 'limit=50&sort=date');
    expect(ascending.records.map((t) => t.id)).toEqual(small.records.map((t) => t.id).reverse());

    const empty = await rule3(consentToken, `/accounts/${card.id}/transactions`);
    expect(empty).toEqual({ records: [], totalCounts: [0] });
    const future = new Date(Date.now() + 10 * DAY).toISOString();
    const nothing = await rule3(consentToken, `/accounts/${current.id}/transactions`, `from=${future}`);
    expect(nothing).toEqual({ records: [], totalCounts: [0] });

    // A window: rule 3 inside from/before visits exactly the records in it.
    const fromMs = Date.parse(big.records[3000].date);
    const beforeMs = Date.parse(big.records[900].date);
    const windowQuery = `limit=200&from=${new Date(fromMs).toISOString()}&before=${new Date(beforeMs).toISOString()}`;
    const windowed = await rule3(consentToken, `/accounts/${current.id}/transactions`, windowQuery);
    const expected = big.records.filter((t) => {
      const ms = Date.parse(t.date);
      return ms >= fromMs && ms <= beforeMs;
    });
    expect(windowed.records.map((t) => t.id)).toEqual(expected.map((t) => t.id));
    expect(windowed.totalCounts[0]).toBe(expected.length);
  });

  it('refuses bad limit, sort, offset, from and before in the upstream error shape', async () => {
    const { consentToken } = await createConsent('erin');
    const { current } = await accountsOf(consentToken);
    const path = `/accounts/${current.id}/transactions`;
    for (const limit of ['0', '1001', 'abc', '-5', '']) {
      expectIssue(await get(`${path}?limit=${limit}`, consentToken), 400, 'limit');
    }
    expectIssue(await get(`${path}?sort=amount`, consentToken), 400, 'sort');
    expectIssue(await get(`${path}?offset=-1`, consentToken), 400, 'offset');
    expectIssue(await get(`${path}?from=yesterday`, consentToken), 400, 'from');
    // The documented form is a date-time: a plain date is refused by name, not read as a day.
    expectIssue(await get(`${path}?from=2024-01-31`, consentToken), 400, 'from');
    expectIssue(await get(`${path}?before=2024-01-31`, consentToken), 400, 'before');
    expectIssue(await get(`${path}?before=2024-13-01T00:00:00.000Z`, consentToken), 400, 'before');
    expectIssue(await get(`${path}?before=2024-02-30T00:00:00.000Z`, consentToken), 400, 'before');
    expectIssue(await get(`/accounts/${current.id}/statements?limit=1001`, consentToken), 400, 'limit');
    expect((await get(`${path}?limit=1&sort=date`, consentToken)).status).toBe(200);
    expect((await get(`${path}?limit=1000`, consentToken)).status).toBe(200);
  });

  it('treats from and before as inclusive, in every accepted date format', async () => {
    const { consentToken } = await createConsent('frank');
    const { current } = await accountsOf(consentToken);
    const page = await get(`/accounts/${current.id}/transactions?offset=3000&limit=1`, consentToken);
    const target = page.body.data[0];
    const t = Date.parse(target.date);
    const iso = new Date(t).toISOString();
    const path = `/accounts/${current.id}/transactions`;
    const exact = await get(`${path}?from=${iso}&before=${iso}`, consentToken);
    expect(exact.body.data.map((x: any) => x.id)).toContain(target.id);
    expect(exact.body.data.every((x: any) => x.date === iso)).toBe(true);
    expect(exact.body.meta.pagination.self).toMatchObject({ from: iso, before: iso });
    const after = new Date(t + 1).toISOString();
    expect((await get(`${path}?from=${after}&before=${after}`, consentToken)).body.data).toEqual([]);

    // yyyy-MM-dd'T'HH:mm:ss.SSSZ with a numeric zone, encoded or with the `+` decoded to a space.
    const local = new Date(t + 3600_000).toISOString().replace('Z', '');
    const zoned = `${local}+0100`;
    const encoded = await get(
      `${path}?from=${encodeURIComponent(zoned)}&before=${encodeURIComponent(zoned)}`,
      consentToken,
    );
    expect(encoded.body.data.map((x: any) => x.id)).toEqual(exact.body.data.map((x: any) => x.id));
    const raw = await get(`${path}?from=${zoned}&before=${local}+01:00`, consentToken);
    expect(raw.body.data.map((x: any) => x.id)).toEqual(exact.body.data.map((x: any) => x.id));

    // A window's totalCount is the number of records inside it.
    const all = await allTransactions(consentToken, current.id);
    const fromMs = t - 30 * DAY;
    const inside = all.filter((x) => Date.parse(x.date) >= fromMs && Date.parse(x.date) <= t).length;
    const windowed = await get(
      `${path}?from=${new Date(fromMs).toISOString()}&before=${iso}&limit=5`,
      consentToken,
    );
    expect(windowed.body.meta.pagination.totalCount).toBe(inside);
  });

  it("bounds what is visible by the consent's transactionFrom and transactionTo", async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const transactionFrom = new Date(today - 90 * DAY).toISOString();
    const transactionTo = new Date(today - 30 * DAY).toISOString();
    const open = await createConsent('gina');
    const bounded = await createConsent('gina', 'sandbox-redirect', { transactionFrom, transactionTo });
    const { current } = await accountsOf(bounded.consentToken);
    const all = await allTransactions(open.consentToken, current.id);
    const expected = all.filter(
      (t) =>
        Date.parse(t.date) >= Date.parse(transactionFrom) && Date.parse(t.date) <= Date.parse(transactionTo),
    );
    const seen = await allTransactions(bounded.consentToken, current.id);
    expect(seen.map((t) => t.id)).toEqual(expected.map((t) => t.id));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(6500);
    const wider = await get(
      `/accounts/${current.id}/transactions?from=${new Date(today - 700 * DAY).toISOString()}`,
      bounded.consentToken,
    );
    expect(wider.body.meta.pagination.totalCount).toBe(expected.length);
  });

  it('pages real-time transactions with opaque cursors: link sets, and every transaction once', async () => {
    const { consentToken } = await createConsent('hank');
    const { current, savings } = await accountsOf(consentToken);
    const path = (id: string) => `/accounts/${id}/real-time/transactions`;

    const first = await get(path(current.id), consentToken);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body.links).sort()).toEqual(['last', 'next', 'self']);
    expect(first.body.meta).toEqual({ tracingId: expect.any(String), count: 250 });
    expect(first.body.meta.pagination).toBeUndefined();
    expect(first.body.data[0].amount).toBeUndefined();
    expect(first.body.data[0].transactionAmount.currency).toBe('GBP');

    const offsetOrder = (await allTransactions(consentToken, current.id)).map((t) => t.id);
    const visited: string[] = [];
    let response = first;
    let pages = 1;
    visited.push(...response.body.data.map((t: any) => t.id));
    while (response.body.links.next) {
      response = await get(follow(response.body.links.next), consentToken);
      expect(response.status).toBe(200);
      pages += 1;
      visited.push(...response.body.data.map((t: any) => t.id));
      if (response.body.links.next) {
        expect(Object.keys(response.body.links).sort()).toEqual(['first', 'last', 'next', 'prev', 'self']);
        expect(response.body.meta.count).toBe(250);
      }
    }
    expect(pages).toBe(26);
    expect(Object.keys(response.body.links).sort()).toEqual(['first', 'prev', 'self']);
    expect(visited).toEqual(offsetOrder);

    // first, prev and last lead where they say.
    const last = await get(follow(first.body.links.last), consentToken);
    expect(last.body.data).toEqual(response.body.data);
    const prev = await get(follow(response.body.links.prev), consentToken);
    expect(prev.body.data.map((t: any) => t.id)).toEqual(offsetOrder.slice(6000, 6250));
    const back = await get(follow(response.body.links.first), consentToken);
    expect(back.body.data).toEqual(first.body.data);

    // A short list: the first page is also the last.
    const fewer = await get(
      `${path(savings.id)}?from=${new Date(Date.now() - 30 * DAY).toISOString()}`,
      consentToken,
    );
    expect(Object.keys(fewer.body.links)).toEqual(['self']);

    // Cursors are checked: garbage, tampering, another account, and from/before after the first request.
    const cursor = new URL(first.body.links.next).searchParams.get('cursor')!;
    expectIssue(await get(`${path(current.id)}?cursor=garbage`, consentToken), 400, 'cursor');
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    expectIssue(await get(`${path(current.id)}?cursor=${tampered}`, consentToken), 400, 'cursor');
    expectIssue(await get(`${path(savings.id)}?cursor=${cursor}`, consentToken), 400, 'cursor');
    expectIssue(
      await get(`${path(current.id)}?cursor=${cursor}&from=2024-01-01T00:00:00.000Z`, consentToken),
      400,
      'from',
    );
  });

  it('lists monthly statements with the offset rules, a statement by id, and beneficiaries with data only', async () => {
    const { consentToken } = await createConsent('ivy');
    const { current, card } = await accountsOf(consentToken);
    const statements = await get(`/accounts/${current.id}/statements`, consentToken);
    expect(statements.status).toBe(200);
    expect(statements.body.meta.pagination).toMatchObject({
      totalCount: 24,
      self: { limit: 1000, sort: '-date', offset: 0 },
    });
    expect(statements.body.links.self).toContain('/statements?from&before&limit=1000&sort=-date&offset=0');
    const newest = statements.body.data[0];
    expect(newest.startDateTime).toMatch(/^\d{4}-\d{2}-01T00:00:00Z$/);
    expect(Date.parse(newest.endDateTime)).toBeLessThan(Date.parse(newest.creationDateTime));
    const page = await get(`/accounts/${current.id}/statements?limit=5&offset=20&sort=date`, consentToken);
    expect(page.body.data.map((s: any) => s.id)).toEqual(
      statements.body.data
        .slice(0, 4)
        .map((s: any) => s.id)
        .reverse(),
    );
    const one = await get(`/accounts/${current.id}/statements/${newest.id}`, consentToken);
    expect(one.body.data).toEqual(newest);
    expect((await get(`/accounts/${current.id}/statements/nope`, consentToken)).status).toBe(404);

    const beneficiaries = await get(`/accounts/${current.id}/beneficiaries`, consentToken);
    expect(Object.keys(beneficiaries.body)).toEqual(['data']);
    expect(beneficiaries.body.data).toHaveLength(3);
    expect(beneficiaries.body.data[0]).toMatchObject({
      id: expect.any(String),
      trusted: expect.any(Boolean),
      reference: expect.any(String),
      payee: { name: expect.any(String), accountIdentifications: expect.any(Array) },
    });
    expect((await get(`/accounts/${card.id}/beneficiaries`, consentToken)).body).toEqual({ data: [] });
  });

  it('pages statements with the same from, before, limit, sort and offset rules as transactions', async () => {
    const { consentToken } = await createConsent('iris');
    const { current } = await accountsOf(consentToken);
    const path = `/accounts/${current.id}/statements`;
    const all = (await get(path, consentToken)).body.data;
    expect(all).toHaveLength(24);
    const starts = all.map((s: any) => Date.parse(s.startDateTime));
    expect(starts.every((t: number, i: number) => i === 0 || t < starts[i - 1])).toBe(true);

    const firstPage = await get(`${path}?limit=5`, consentToken);
    expect(firstPage.body.meta).toMatchObject({ count: 5 });
    expect(firstPage.body.meta.pagination).toEqual({
      totalCount: 24,
      self: { limit: 5, sort: '-date', offset: 0 },
      next: { limit: 5 },
    });
    expect(firstPage.body.links).toEqual({
      self: `${publicUrl}${path}?from&before&limit=5&sort=-date&offset=0`,
    });
    const walk = await rule3(consentToken, path, 'limit=5');
    expect(walk.totalCounts).toEqual([24, 19, 14, 9, 4]);
    expect(walk.records).toEqual(all);
    const tail = await get(`${path}?limit=5&offset=20`, consentToken);
    expect(tail.body.meta).toMatchObject({ count: 4, pagination: { totalCount: 4 } });
    expect(tail.body.meta.pagination.next).toBeUndefined();
    const ascending = await get(`${path}?sort=date&limit=3&offset=1`, consentToken);
    expect(ascending.body.data).toEqual(all.slice(20, 23).reverse());
    expect(ascending.body.meta.pagination).toMatchObject({
      totalCount: 23,
      self: { sort: 'date', offset: 1 },
    });

    // from and before are inclusive and select by the statement's start.
    const from = new Date(starts[5]).toISOString();
    const before = new Date(starts[2]).toISOString();
    const windowed = await get(`${path}?from=${from}&before=${before}&limit=2`, consentToken);
    expect(windowed.body.data).toEqual(all.slice(2, 4));
    expect(windowed.body.meta.pagination).toEqual({
      totalCount: 4,
      self: { from, before, limit: 2, sort: '-date', offset: 0 },
      next: { from, before, limit: 2 },
    });
    const windowWalk = await rule3(consentToken, path, `from=${from}&before=${before}&limit=2`);
    expect(windowWalk.records).toEqual(all.slice(2, 6));
    const justAfter = new Date(starts[2] + 1).toISOString();
    expect((await get(`${path}?from=${justAfter}&before=${before}`, consentToken)).body.data).toEqual([]);
    expectIssue(await get(`${path}?sort=amount`, consentToken), 400, 'sort');
    expectIssue(await get(`${path}?offset=-1`, consentToken), 400, 'offset');
    expectIssue(await get(`${path}?from=yesterday`, consentToken), 400, 'from');
    // The documented form is a date-time: a plain date is refused by name, not read as a day.
    expectIssue(await get(`${path}?from=2024-01-31`, consentToken), 400, 'from');
    expectIssue(await get(`${path}?before=2024-01-31`, consentToken), 400, 'before');
  });

  it('checks the consent header on statements and beneficiaries: missing 400, another application 401', async () => {
    const consent = await createConsent('isaac');
    const { current } = await accountsOf(consent.consentToken);
    const sub = SEEDED_SUB_APPLICATIONS[0];
    for (const path of [`/accounts/${current.id}/statements`, `/accounts/${current.id}/beneficiaries`]) {
      expect((await get(path, consent.consentToken)).status).toBe(200);
      const missing = await get(path);
      expect(missing.status).toBe(400);
      expect(missing.body.error.issues[0]).toMatchObject({ parameter: 'consent' });
      const foreign = await http.call('GET', path, {
        consent: consent.consentToken,
        auth: { id: sub.id, secret: sub.secret },
      });
      expect(foreign.status).toBe(401);
      expect(foreign.body.error).toMatchObject({ code: 401, source: 'YAPILY' });
    }
  });

  it('categorises transactions (Data Plus): mandatory type, results, and 16002 for an empty period', async () => {
    const { consentToken } = await createConsent('jack');
    const { current, card } = await accountsOf(consentToken);
    const post = (accountId: string, body: unknown) =>
      http.call('POST', `/accounts/${accountId}/transactions/categorisation`, {
        consent: consentToken,
        body,
      });

    const missing = await post(current.id, { countryCode: 'GB' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ errors: [{ fieldName: 'categorisationType', error: 'MANDATORY' }] });
    expectIssue(
      await post(current.id, { categorisationType: 'household', countryCode: 'GB' }),
      400,
      'categorisationType',
    );

    const from = new Date(Date.now() - 60 * DAY).toISOString();
    const created = await post(current.id, { categorisationType: 'consumer', countryCode: 'GB', from });
    expect(created.status).toBe(201);
    const id = created.body.data.categorisationId;
    expect(id).toEqual(expect.any(String));
    const result = await get(`/accounts/${current.id}/transactions/categorisation/${id}`, consentToken);
    expect(result.status).toBe(200);
    const inPeriod = (await get(`/accounts/${current.id}/transactions?from=${from}&limit=1`, consentToken))
      .body.meta.pagination.totalCount;
    expect(result.body.meta).toMatchObject({ count: inPeriod, pageCount: Math.ceil(inPeriod / 100) });
    expect(result.body.data.transactions).toHaveLength(100);
    expect(result.body.data.transactions[0].enrichment).toMatchObject({
      transactionHash: { hash: expect.stringMatching(/^[0-9a-f]{32}\.1$/) },
      categorisation: { categories: [expect.any(String)] },
    });

    const empty = await post(card.id, { categorisationType: 'business', countryCode: 'GB' });
    const noData = await get(
      `/accounts/${card.id}/transactions/categorisation/${empty.body.data.categorisationId}`,
      consentToken,
    );
    expect(noData.status).toBe(404);
    expect(noData.body.error.issues[0].code).toBe(16002);
    expect(
      (await get(`/accounts/${current.id}/transactions/categorisation/unknown`, consentToken)).status,
    ).toBe(404);
  });

  it('adds enrichment in version 2 only when `with` asks for it; the hash is always there', async () => {
    const { consentToken } = await createConsent('kate');
    const { current } = await accountsOf(consentToken);
    const path = `/accounts/${current.id}/transactions?limit=50`;
    const v1 = await get(path, consentToken);
    expect(Object.keys(v1.body.data[0].enrichment)).toEqual(['transactionHash']);
    // Spec part 9: without `with`, version 2 returns no categories or merchants, but always the hash.
    const v2 = await get(path, consentToken, { v2: true });
    expect(v2.body.data.map((t: any) => t.id)).toEqual(v1.body.data.map((t: any) => t.id));
    v2.body.data.forEach((t: any, i: number) => {
      expect(t.enrichment).toEqual({ transactionHash: { hash: expect.stringMatching(/^[0-9a-f]{32}\.1$/) } });
      expect(t.enrichment).toEqual(v1.body.data[i].enrichment);
    });
    const categories = await get(`${path}&with=categorisation`, consentToken, { v2: true });
    expect(categories.body.data[0].enrichment).toEqual({
      categorisation: { categories: [expect.any(String)], source: 'MODEL' },
      transactionHash: v1.body.data[0].enrichment.transactionHash,
    });
    const merchants = await get(`${path}&with=merchant`, consentToken, { v2: true });
    const card = merchants.body.data.find((t: any) => t.merchant);
    expect(card.enrichment).toMatchObject({
      transactionHash: { hash: expect.any(String) },
      cleansedDescription: card.merchant.merchantName,
      merchant: { merchantName: card.merchant.merchantName, parentGroup: expect.any(String) },
    });
    expect(card.enrichment.categorisation).toBeUndefined();
    const both = await get(`${path}&with=categorisation,merchant`, consentToken, { v2: true });
    expect(both.body.data[0].enrichment.categorisation).toBeDefined();
    expect(both.body.data[0].enrichment.cleansedDescription).toBeDefined();
    expect(both.body.links.self).toContain('with=categorisation%2Cmerchant');
    expectIssue(await get(`${path}&with=location`, consentToken, { v2: true }), 400, 'with');
  });

  it('answers consent problems: missing 400, foreign 401, expired and revoked 403', async () => {
    const consent = await createConsent('liam');
    const { current } = await accountsOf(consent.consentToken);
    const missing = await get('/accounts');
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues[0]).toMatchObject({ parameter: 'consent' });
    const sub = SEEDED_SUB_APPLICATIONS[0];
    const foreign = await http.call('GET', '/accounts', {
      consent: consent.consentToken,
      auth: { id: sub.id, secret: sub.secret },
    });
    expect(foreign.status).toBe(401);
    expect((await get('/accounts', 'not-a-token')).status).toBe(401);

    expect((await http.admin('POST', `/consents/${consent.id}/expire`)).status).toBe(200);
    const expired = await get(`/accounts/${current.id}/transactions`, consent.consentToken);
    expect(expired.status).toBe(403);
    expect(expired.body.error.issues[0]).toMatchObject({ type: 'CONSENT', code: 'CONSENT_EXPIRED' });

    const other = await createConsent('liam');
    expect((await http.admin('POST', `/consents/${other.id}/revoke`)).status).toBe(200);
    const revoked = await get('/accounts', other.consentToken);
    expect(revoked.status).toBe(403);
    expect(revoked.body.error.issues[0].code).toBe('CONSENT_REVOKED');
  });

  it("refuses features the institution lacks or the consent's scope leaves out", async () => {
    const payments = await createConsent('mia', 'sandbox-payments');
    const refused = await get('/accounts', payments.consentToken);
    expect(refused.status).toBe(403);
    expect(refused.body.error.issues[0]).toMatchObject({
      type: 'FEATURE_NOT_SUPPORTED',
      parameter: 'ACCOUNTS',
    });

    const narrow = await createConsent('mia', 'sandbox-redirect', { featureScope: ['ACCOUNTS'] });
    const { current } = await accountsOf(narrow.consentToken);
    const transactions = await get(`/accounts/${current.id}/transactions`, narrow.consentToken);
    expect(transactions.status).toBe(403);
    expect(transactions.body.error.issues[0]).toMatchObject({ parameter: 'ACCOUNT_TRANSACTIONS' });
  });

  it('lets sandbox-flaky answer 500 and 424 in the standard shape, counting per consent', async () => {
    const { consentToken } = await createConsent('noah', 'sandbox-flaky');
    const sub = SEEDED_SUB_APPLICATIONS[0];
    const other = await createConsent('nora', 'sandbox-flaky', { applicationId: sub.id });
    const otherGet = () =>
      http.call('GET', '/accounts', {
        consent: other.consentToken,
        auth: { id: sub.id, secret: sub.secret },
      });
    expect((await otherGet()).status).toBe(200);
    // Interleaved with another application's consent, which is one call ahead: neither shifts the other.
    const responses = [];
    const otherStatuses = [];
    for (let i = 0; i < 3; i += 1) {
      responses.push(await get('/accounts', consentToken));
      otherStatuses.push((await otherGet()).status);
    }
    expect(responses.map((r) => r.status)).toEqual([200, 500, 424]);
    expect(otherStatuses).toEqual([500, 424, 200]);
    const internal = responses.find((r) => r.status === 500)!;
    expect(internal.body.error).toMatchObject({
      code: 500,
      status: 'INTERNAL SERVER ERROR',
      source: 'INSTITUTION',
    });
    expect(internal.body.error.issues[0].type).toBe('INTERNAL_SERVER_ERROR');
    const dependency = responses.find((r) => r.status === 424)!;
    expect(dependency.body.error).toMatchObject({
      code: 424,
      status: 'FAILED_DEPENDENCY',
      source: 'INSTITUTION',
      institutionError: { httpStatusCode: expect.any(Number), errorMessage: expect.any(String) },
    });
    expect(responses.find((r) => r.status === 200)!.body.data).toHaveLength(3);
  });

  it('keeps every transaction identical as the sandbox clock moves on, with 6,500 and 467 in every window', async () => {
    const consent = await createConsent('paul');
    const token = consent.consentToken;
    const { current, savings } = await accountsOf(token);
    const snapshot = async () => ({
      current: await allTransactions(token, current.id),
      savings: await allTransactions(token, savings.id),
      accounts: await accountsOf(token),
      dayStart: Math.floor(Date.parse((await http.admin('GET', '/clock')).body.data.now) / DAY) * DAY,
    });
    const minor = (n: number) => Math.round(n * 100);
    /** Newest first: each balance is the next older one plus this amount; the newest is the booked balance. */
    const expectChain = (records: any[], account: any, dayStart: number) => {
      for (let i = 0; i < records.length - 1; i += 1) {
        expect(minor(records[i].balance.balanceAmount.amount)).toBe(
          minor(records[i + 1].balance.balanceAmount.amount) + minor(records[i].amount),
        );
      }
      const closing = account.accountBalances.find((b: any) => b.type === 'CLOSING_AVAILABLE');
      expect(records[0].balance.balanceAmount).toEqual(closing.balanceAmount);
      expect(Date.parse(records[0].date)).toBeLessThan(dayStart);
      expect(Date.parse(records.at(-1).date)).toBeGreaterThanOrEqual(dayStart - 730 * DAY);
    };
    const expectMovedOn = (before: any[], after: any[]) => {
      const old = new Map(before.map((t) => [t.id, t]));
      const kept = after.filter((t) => old.has(t.id));
      expect(kept.length).toBeGreaterThan(0);
      for (const t of kept) expect(t).toEqual(old.get(t.id));
      // Only the oldest days left, and only new days arrived.
      const keptIds = new Set(kept.map((t) => t.id));
      const oldestKept = Date.parse(kept.at(-1).date);
      const newestKept = Date.parse(kept[0].date);
      expect(before.filter((t) => !keptIds.has(t.id)).every((t) => Date.parse(t.date) < oldestKept)).toBe(
        true,
      );
      expect(after.filter((t) => !old.has(t.id)).every((t) => Date.parse(t.date) > newestKept)).toBe(true);
      return kept.length;
    };

    const original = await snapshot();
    expect([original.current.length, original.savings.length]).toEqual([6500, 467]);
    expectChain(original.current, original.accounts.current, original.dayStart);
    expectChain(original.savings, original.accounts.savings, original.dayStart);
    let previous = original;
    for (const days of [1, 40]) {
      expect((await http.admin('POST', '/clock/advance', { days })).status).toBe(200);
      const next = await snapshot();
      expect(next.dayStart).toBe(previous.dayStart + days * DAY);
      expect([next.current.length, next.savings.length]).toEqual([6500, 467]);
      const keptCurrent = expectMovedOn(previous.current, next.current);
      expect(keptCurrent).toBeLessThan(6500);
      expectMovedOn(previous.savings, next.savings);
      expectChain(next.current, next.accounts.current, next.dayStart);
      expectChain(next.savings, next.accounts.savings, next.dayStart);
      previous = next;
    }

    // The same ids, dates and amounts again after a reset (which also resets the clock).
    await http.admin('POST', '/reset');
    const again = await createConsent('paul');
    expect(await allTransactions(again.consentToken, current.id)).toEqual(original.current);
    expect(await allTransactions(again.consentToken, savings.id)).toEqual(original.savings);
  });

  it("keeps an institution's daily allowance of reads without the user, per account, until the next day", async () => {
    const { id, consentToken } = await createConsent('amara');
    const quirk = await http.admin('PUT', '/institutions/sandbox-redirect/quirks', {
      unattendedReadsPerDay: 2,
    });
    expect(quirk.body.data.unattendedReadsPerDay).toBe(2);
    const { current, savings } = await accountsOf(consentToken);
    const read = (accountId: string, query = '', headers: Record<string, string> = {}) =>
      http.call('GET', `/accounts/${accountId}/transactions?limit=10${query}`, {
        consent: consentToken,
        headers,
      });
    // A read is its first page; the pages that follow it are the same read.
    for (let i = 0; i < 2; i += 1) {
      expect((await read(current.id)).status).toBe(200);
      expect((await read(current.id, '&offset=10')).status).toBe(200);
    }
    const refused = await read(current.id);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 429, source: 'INSTITUTION' });
    expect(refused.body.error.institutionError).toEqual({
      errorMessage: 'Daily request limit set by the Institution has been exceeded',
      httpStatusCode: 429,
    });
    const now = Date.parse((await http.admin('GET', '/clock')).body.data.now);
    const midnight = Date.parse(new Date(now).toISOString().slice(0, 10)) + DAY;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(retryAfter - (midnight - now) / 1000)).toBeLessThanOrEqual(5);
    const realTime = `/accounts/${current.id}/real-time/transactions`;
    expect((await http.call('GET', realTime, { consent: consentToken })).status).toBe(429);
    // The user present (psu-ip-address): neither counted nor refused. Another account: an allowance of its own.
    expect((await read(current.id, '', { 'psu-ip-address': '203.0.113.7' })).status).toBe(200);
    expect((await read(savings.id)).status).toBe(200);
    const counted = async () =>
      new Map(
        (await http.admin('GET', `/consents/${id}/accounts`)).body.data.map((a: any) => [
          a.id,
          a.unattendedReads,
        ]),
      );
    const shown = await counted();
    expect(shown.get(current.id)).toMatchObject({
      count: 2,
      limit: 2,
      resetsAt: new Date(midnight).toISOString(),
    });
    expect(shown.get(savings.id)).toMatchObject({ count: 1, limit: 2 });
    // The counts started again by the control API: the same day, the allowance whole again.
    expect((await http.admin('DELETE', '/unattended-reads')).body.data).toEqual({ cleared: 2 });
    expect((await counted()).get(current.id)).toMatchObject({ count: 0, limit: 2 });
    for (let i = 0; i < 2; i += 1) expect((await read(current.id)).status).toBe(200);
    expect((await read(current.id)).status).toBe(429);
    // The next day on the sandbox's clock: a new allowance. Lifted (null): no limit, still counted.
    await http.admin('POST', '/clock/advance', { days: 1 });
    expect((await read(current.id)).status).toBe(200);
    await http.admin('PUT', '/institutions/sandbox-redirect/quirks', { unattendedReadsPerDay: null });
    for (let i = 0; i < 3; i += 1) expect((await read(current.id)).status).toBe(200);
    expect((await counted()).get(current.id)).toMatchObject({ count: 4, limit: null });
    const bad = await http.admin('PUT', '/institutions/sandbox-redirect/quirks', {
      unattendedReadsPerDay: 0,
    });
    expect(bad.status).toBe(400);
  });

  it('lists the same accounts under ids of each consent at a bank with per-consent account ids', async () => {
    const quirk = await http.admin('PUT', '/institutions/sandbox-redirect/quirks', {
      accountIdsPerConsent: true,
    });
    expect(quirk.body.data).toMatchObject({ accountIdsPerConsent: true, reauthorisationKeepsExpiry: false });
    const first = await createConsent('pia');
    const second = await createConsent('pia');
    const [a, b] = [await accountsOf(first.consentToken), await accountsOf(second.consentToken)];
    const ids = (x: typeof a) => x.all.map((r: any) => r.id);
    expect(ids(a).filter((id: string) => ids(b).includes(id))).toEqual([]);
    // Same accounts: identifications, and the transactions' own ids, whichever consent reads them.
    expect(b.all.map((r: any) => r.accountIdentifications)).toEqual(
      a.all.map((r: any) => r.accountIdentifications),
    );
    const newest = async (token: string, accountId: string) =>
      (await get(`/accounts/${accountId}/transactions?limit=5`, token)).body.data.map((t: any) => t.id);
    expect(await newest(second.consentToken, b.current.id)).toEqual(
      await newest(first.consentToken, a.current.id),
    );
    expect((await accountsOf(first.consentToken)).current.id).toBe(a.current.id); // stable per consent
    expect((await get(`/accounts/${b.current.id}/transactions?limit=1`, first.consentToken)).status).toBe(
      404,
    );

    // The control API takes the listed ids, and a change shows under every consent.
    const added = await http.admin('POST', `/consents/${second.id}/accounts/${b.current.id}/transactions`, {
      amount: -1.5,
    });
    expect(added.status).toBe(201);
    expect((await newest(first.consentToken, a.current.id))[0]).toBe(added.body.data.id);

    expect((await http.admin('PUT', '/institutions/no-such-bank/quirks', {})).status).toBe(404);
    expect(
      (await http.admin('PUT', '/institutions/sandbox-redirect/quirks', { accountIdsPerConsent: 'yes' }))
        .status,
    ).toBe(400);
  });

  it('shows control-API changes at once through both paging modes, until a reset', async () => {
    const consent = await createConsent('olga');
    const token = consent.consentToken;
    const listed = await http.admin('GET', `/consents/${consent.id}/accounts`);
    expect(listed.status).toBe(200);
    const current = listed.body.data.find((a: any) => a.accountType === 'CURRENT');
    expect(current.transactionCount).toBe(6500);
    const base = `/consents/${consent.id}/accounts/${current.id}/transactions`;
    const newest = async () => (await get(`/accounts/${current.id}/transactions?limit=1`, token)).body;
    const realTimeFirst = async () =>
      (await get(`/accounts/${current.id}/real-time/transactions`, token)).body.data[0];
    const closing = async () =>
      (await accountsOf(token)).current.accountBalances.find((b: any) => b.type === 'CLOSING_AVAILABLE')
        .balanceAmount.amount;
    const before = await closing();

    const added = await http.admin('POST', base, {
      amount: -12.34,
      description: 'SANDBOX TEST SHOP',
      merchantName: 'Test Shop',
    });
    expect(added.status).toBe(201);
    const page = await newest();
    expect(page.meta.pagination.totalCount).toBe(6501);
    expect(page.data[0]).toMatchObject({
      id: added.body.data.id,
      amount: -12.34,
      description: 'SANDBOX TEST SHOP',
    });
    expect((await realTimeFirst()).id).toBe(added.body.data.id);
    expect(Math.round((await closing()) * 100)).toBe(Math.round(before * 100) - 1234);

    const changed = await http.admin('PATCH', `${base}/${added.body.data.id}`, {
      amount: 99.99,
      description: 'CHANGED',
    });
    expect(changed.status).toBe(200);
    expect((await newest()).data[0]).toMatchObject({
      id: added.body.data.id,
      amount: 99.99,
      description: 'CHANGED',
    });

    const pending = await http.admin('POST', base, { amount: -5, status: 'PENDING' });
    const pendingRecord = (await newest()).data[0];
    expect(pendingRecord).toMatchObject({
      id: pending.body.data.id,
      status: 'PENDING',
      transactionMutability: 'Mutable',
    });
    expect(pendingRecord.balance).toBeUndefined();
    const booked = await http.admin('PATCH', `${base}/${pending.body.data.id}`, { status: 'BOOKED' });
    expect(booked.body.data).toMatchObject({ status: 'BOOKED', previousId: pending.body.data.id });
    expect(booked.body.data.id).not.toBe(pending.body.data.id);
    expect((await newest()).data[0]).toMatchObject({ id: booked.body.data.id, status: 'BOOKED' });
    expect((await realTimeFirst()).id).toBe(booked.body.data.id);
    expectIssue(
      await http.admin('PATCH', `${base}/${booked.body.data.id}`, { status: 'PENDING' }),
      400,
      'status',
    );
    expectIssue(await http.admin('POST', base, { amount: 'ten' }), 400, 'amount');

    expect((await http.admin('DELETE', `${base}/${booked.body.data.id}`)).status).toBe(204);
    expect((await http.admin('DELETE', `${base}/${booked.body.data.id}`)).status).toBe(404);
    expect((await newest()).meta.pagination.totalCount).toBe(6501);

    // The changes still apply when the sandbox's day moves on and the data is generated again.
    const addedAt = (await http.admin('GET', `/consents/${consent.id}/accounts`)).body.data;
    expect(addedAt.find((a: any) => a.id === current.id).transactionCount).toBe(6501);
    expect((await http.admin('POST', '/clock/advance', { days: 1 })).status).toBe(200);
    const moved = await http.admin('GET', `/consents/${consent.id}/accounts`);
    expect(moved.body.data.find((a: any) => a.id === current.id).transactionCount).toBe(6501);
    const at = encodeURIComponent(changed.body.data.date);
    const still = await get(`/accounts/${current.id}/transactions?from=${at}&before=${at}`, token);
    expect(still.body.data).toContainEqual(
      expect.objectContaining({ id: added.body.data.id, amount: 99.99, description: 'CHANGED' }),
    );
    expect(still.body.data.map((t: any) => t.id)).not.toContain(booked.body.data.id);

    await http.admin('POST', '/reset');
    const again = await createConsent('olga');
    const reset = await get(`/accounts/${current.id}/transactions?limit=1`, again.consentToken);
    expect(reset.body.meta.pagination.totalCount).toBe(6500);
    expect((await http.admin('GET', `/consents/${consent.id}/accounts`)).status).toBe(404);
    const noBearer = await http.call('GET', `/sandbox/admin/consents/${again.id}/accounts`, { auth: 'none' });
    expect(noBearer.status).toBe(401);
  });
});
