import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { withWork } from '#libs/context';
import { DatabasePool, PrismaService } from '#libs/database';
import { UpstreamCallRecorder } from '#libs/domain/upstream-calls';
import {
  type ApiResponse,
  assertProperty,
  createConsentRow,
  type ErrorBody,
  onboard,
  propertyTimeout,
  type Tenant,
  useStack,
} from '../kit/index.js';

/** A page's size when the query names none, and the most one page holds (apps/api/src/common/paging.ts). */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

interface Call {
  id: string;
  at: string;
}
type Page = ApiResponse<{
  data: Call[];
  meta: { count: number; nextCursor: string | null };
  links?: { next: string };
}>;

/**
 * Issue 61's call log, paged as every list is: whatever the number of calls (none, 9, 10, past the
 * default page, past the largest), all made at one instant, and whatever the page size, following
 * `links.next` gives every call of the consent once, newest first, each page full but the last, and the
 * last with no cursor. Bad cursors and limits are a 400 naming the parameter, never a 500.
 */
describe('property: a call log pages every call once, newest first', () => {
  const stack = useStack();
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await onboard(stack);
  });

  /** A consent of the tenant with `count` calls in its log, all started at one instant, written. */
  async function consentWithCalls(count: number): Promise<string> {
    const consent = await createConsentRow(stack.api.app.get(PrismaService), {
      id: tenant.userId,
      merchantId: tenant.merchant.merchant.id,
    });
    const recorder = stack.api.app.get(UpstreamCallRecorder);
    const at = new Date();
    withWork({ merchantId: tenant.merchant.merchant.id, consentId: consent.id }, () => {
      for (let n = 0; n < count; n += 1) {
        recorder.record({
          operation: 'getAccounts',
          institutionId: 'sandbox-redirect',
          attempt: 1,
          startedAt: at,
          durationMs: n,
          status: 200,
          errorKind: undefined,
          tracingId: `paging-${n}`,
        });
      }
    });
    await recorder.flush();
    return consent.id;
  }

  /** The consent's call ids as Postgres holds them, newest (highest id) first. */
  async function idsOf(consentId: string): Promise<string[]> {
    const rows = await stack.api.app.get(DatabasePool).rows<{ id: string }>({
      // By the bigint, not its text (past 999 the two orders part).
      text: 'SELECT u.id::text AS id FROM upstream_calls u WHERE u.consent_id = $1 ORDER BY u.id DESC',
      values: [consentId],
    });
    return rows.map((r) => r.id);
  }

  it(
    'pages of any size over any number of calls sharing one instant',
    async () => {
      const counts = fc.oneof(
        fc.constantFrom(0, 9, 10, 11, DEFAULT_LIMIT, DEFAULT_LIMIT + 1, MAX_LIMIT, MAX_LIMIT + 1),
        fc.nat(2 * MAX_LIMIT + 3),
      );
      const limits = fc.option(
        fc.oneof(fc.constantFrom(1, 9, 10, DEFAULT_LIMIT, MAX_LIMIT), fc.integer({ min: 1, max: MAX_LIMIT })),
      );
      await assertProperty(
        fc.asyncProperty(counts, limits, async (count, limit) => {
          const consentId = await consentWithCalls(count);
          const all = await idsOf(consentId);
          expect(all).toHaveLength(count);
          const size = limit ?? DEFAULT_LIMIT;
          const read: string[] = [];
          let next: string | undefined =
            `/v1/consents/${consentId}/upstream-calls${limit === null ? '' : `?limit=${limit}`}`;
          for (let pages = 0; next; pages += 1) {
            expect(pages).toBeLessThanOrEqual(count);
            const page: Page = await tenant.client.get(next);
            expect(page.status, JSON.stringify(page.body)).toBe(200);
            const { data, meta, links } = page.body;
            expect(meta.count).toBe(data.length);
            read.push(...data.map((c) => c.id));
            next = links?.next;
            // A page is full, but the last; the last has no cursor, and no page after the last is empty.
            if (next) expect([data.length, meta.nextCursor]).toEqual([size, expect.any(String)]);
            else expect(meta.nextCursor).toBeNull();
            if (next) expect(new URL(next, stack.api.url).searchParams.get('limit')).toBe(String(size));
          }
          expect(read).toEqual(all);
          expect(new Set(read).size).toBe(count);
        }),
        20,
      );
    },
    propertyTimeout(120_000),
  );

  it('refuses a cursor or a limit it did not issue with a 400 naming it, and still 404s an unknown consent', async () => {
    const consentId = await consentWithCalls(3);
    const path = `/v1/consents/${consentId}/upstream-calls`;
    const cursor = (key: string) => Buffer.from(key).toString('base64url');
    const refusals: [string, string][] = [
      // 19 digits, as the keyset allows, but past the largest bigint.
      [`cursor=${cursor('9999999999999999999')}`, 'cursor'],
      [`cursor=${cursor('-1')}`, 'cursor'],
      [`cursor=${cursor('12a')}`, 'cursor'],
      ['cursor=not%20base64', 'cursor'],
      ['cursor=', 'cursor'],
      ['limit=0', 'limit'],
      [`limit=${MAX_LIMIT + 1}`, 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=-1', 'limit'],
    ];
    for (const [query, field] of refusals) {
      const answer = await tenant.client.get(`${path}?${query}`);
      expect(answer.status, `${query}: ${JSON.stringify(answer.body)}`).toBe(400);
      const { error } = answer.body as ErrorBody & { error: { details: { field: string }[] } };
      expect([error.code, error.details.map((d) => d.field)], query).toEqual(['VALIDATION_FAILED', [field]]);
    }
    // The largest bigint is a cursor like any other: before every call, so an empty last page.
    const largest = await tenant.client.get(`${path}?cursor=${cursor('9223372036854775807')}`);
    expect(largest.status).toBe(200);
    expect((largest.body as Page['body']).data).toHaveLength(3);
    const beforeAll = await tenant.client.get(`${path}?cursor=${cursor('1')}`);
    expect([beforeAll.status, (beforeAll.body as Page['body']).data]).toEqual([200, []]);
    const unknown = await tenant.client.get(
      `/v1/consents/00000000-0000-7000-8000-000000000000/upstream-calls?cursor=${cursor('1')}`,
    );
    expect(unknown.status).toBe(404);
  });
});
