import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { connect, dataOf, useStack, useTenant } from './kit/index.js';

/** Issue 8, defect 5: a page of statements says when there is more, and the cursor walks the rest. */
describe('api: statements are paged with nextCursor', () => {
  const stack = useStack();
  const tenant = useTenant(stack);
  let accountId: string;
  let otherAccountId: string;

  beforeAll(async () => {
    const consentId = await connect(stack, tenant);
    const accounts = await stack.api.app
      .get(PrismaService)
      .account.findMany({ where: { consentId }, orderBy: { id: 'asc' } });
    [accountId, otherAccountId] = accounts.map((a) => a.id) as [string, string];
  });

  const page = (query: string, account = accountId) =>
    tenant.client.get(`/v1/accounts/${account}/statements?${query}`);

  it('walks every statement once, page by page, and ends with nextCursor null', async () => {
    const all = dataOf<{ id: string }[]>(await page('limit=1000'));
    expect(all.length).toBeGreaterThan(3);

    const first = await page('limit=3');
    expect(dataOf(first)).toHaveLength(3);
    expect(first.body.meta.nextCursor).toEqual(expect.any(String));

    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await page(`limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      walked.push(...dataOf<{ id: string }[]>(response).map((s) => s.id));
      cursor = response.body.meta.nextCursor as string | null;
      pages += 1;
    } while (cursor && pages < 100);
    expect(cursor).toBeNull();
    expect(walked).toEqual(all.map((s) => s.id));
  });

  it('keeps the first request’s order through the cursor', async () => {
    const oldestFirst = dataOf<{ id: string }[]>(await page('limit=1000&sort=date')).map((s) => s.id);
    const first = await page('limit=2&sort=date');
    const second = await page(`limit=2&cursor=${encodeURIComponent(first.body.meta.nextCursor as string)}`);
    expect([...dataOf(first), ...dataOf(second)].map((s: { id: string }) => s.id)).toEqual(
      oldestFirst.slice(0, 4),
    );
  });

  it('refuses a tampered cursor, or one from another account, with 400', async () => {
    const cursor = (await page('limit=3')).body.meta.nextCursor as string;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'B' : 'A'}A`;
    for (const response of [
      await page(`cursor=${encodeURIComponent(tampered)}`),
      await page(`cursor=${encodeURIComponent(cursor)}`, otherAccountId),
    ]) {
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'cursor' }],
      });
    }
  });
});
