import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import { connect, createUser, dataOf, eventually, onboard, type Tenant, useStack } from './kit/index.js';

type Event = {
  id: string;
  type: string;
  createdAt: string;
  userId: string | null;
  userReference: string | null;
  data: { consentId?: string };
};
type Page = { data: Event[]; meta: { nextCursor: string | null } };

/**
 * `GET /v1/events`: a merchant's events, newest first in commit order, every page joined giving each of
 * its events once, filtered as asked, and never another merchant's.
 */
describe('api: the events list', () => {
  // The worker relays the events recorded here: a database of its own.
  const stack = useStack({ ownDatabase: 'events_list', worker: true });
  let tenant: Tenant;
  let other: Tenant;
  let secondUser: string;

  beforeAll(async () => {
    [tenant, other] = [await onboard(stack), await onboard(stack)];
    secondUser = (await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id)).id;
    // Three consents (each a consent.authorized and its sync's events), one of them another user's.
    await connect(stack, tenant);
    await connect(stack, tenant);
    await connect(stack, { ...tenant, userId: secondUser });
    await connect(stack, other);
  }, 120_000);

  /** Every page of the list for `query`, joined. */
  async function all(query: string, limit: number): Promise<Event[]> {
    const events: Event[] = [];
    let cursor: string | null = null;
    do {
      const answer = await tenant.client.get(
        `/v1/events?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const page = answer.body as Page;
      events.push(...page.data);
      cursor = page.meta.nextCursor;
    } while (cursor);
    return events;
  }

  it('pages through every event once, newest first, only the merchant’s own', async () => {
    const whole = await eventually('the three consents’ events relayed', async () => {
      const listed = await all('', 100);
      return listed.filter((e) => e.type === 'consent.authorized').length === 3 ? listed : undefined;
    });
    for (const limit of [1, 2, 7]) {
      const paged = await all('', limit);
      // Events recorded meanwhile (syncs finishing) come first; the older ones follow in the same order.
      expect(paged.map((e) => e.id).slice(-whole.length)).toEqual(whole.map((e) => e.id));
      expect(new Set(paged.map((e) => e.id)).size).toBe(paged.length);
    }
    // The other merchant's events are relayed on their own time, like these were: waited for the same way.
    const theirs = await eventually('the other merchant’s events relayed', async () => {
      const listed = dataOf<Event[]>(await other.client.get('/v1/events?limit=100'), 200);
      return listed.length > 0 ? listed : undefined;
    });
    expect(whole.some((e) => theirs.some((t) => t.id === e.id))).toBe(false);

    const one = whole[0];
    expect(dataOf<Event>(await tenant.client.get(`/v1/events/${one.id}`), 200)).toEqual(one);
    expect((await other.client.get(`/v1/events/${one.id}`)).status).toBe(404);
    expect((await tenant.client.get('/v1/events/not-an-id')).status).toBe(404);
  });

  it('filters by type, user and time, and names a bad filter', async () => {
    const authorised = await all('&type=consent.authorized', 1);
    expect(authorised.map((e) => e.type)).toEqual([
      'consent.authorized',
      'consent.authorized',
      'consent.authorized',
    ]);
    const ofSecond = await all(`&userId=${secondUser}`, 2);
    expect(ofSecond.length).toBeGreaterThan(0);
    expect(ofSecond.every((e) => e.userId === secondUser)).toBe(true);
    const oldest = authorised.at(-1)!;
    const since = await all(`&type=consent.authorized&from=${encodeURIComponent(oldest.createdAt)}`, 10);
    expect(since.map((e) => e.id)).toContain(oldest.id);
    const beforeIt = await all(`&type=consent.authorized&before=${encodeURIComponent(oldest.createdAt)}`, 10);
    expect(beforeIt.map((e) => e.id)).not.toContain(oldest.id);

    for (const [query, field] of [
      ['type=consent.sideways', 'type'],
      ['userId=42', 'userId'],
      ['from=yesterday', 'from'],
      ['cursor=%3D%3D', 'cursor'],
      // 19 digits, past the largest bigint a stream position can be.
      [`cursor=${Buffer.from('9999999999999999999').toString('base64url')}`, 'cursor'],
      ['from=2026-11-26&before=2026-11-26', 'before'],
    ]) {
      const refused = await tenant.client.get(`/v1/events?${query}`);
      expect([refused.status, refused.body.error.details?.[0]?.field]).toEqual([400, field]);
    }
  });

  it('names each event’s customer by the reference they had when it was recorded', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const referenceOf = async (id: string) =>
      (await prisma.user.findUniqueOrThrow({ where: { id }, select: { reference: true } })).reference;
    const before = await all(`&userId=${secondUser}`, 100);
    const old = await referenceOf(secondUser);
    expect(before.length).toBeGreaterThan(0);
    expect(before.map((e) => e.userReference)).toEqual(before.map(() => old));
    const mine = await all(`&userId=${tenant.userId}`, 100);
    expect(new Set(mine.map((e) => e.userReference))).toEqual(new Set([await referenceOf(tenant.userId)]));

    const renamed = `${old}-renamed`;
    dataOf(await tenant.client.patch(`/v1/users/${secondUser}`, { reference: renamed }), 200);
    await connect(stack, { ...tenant, userId: secondUser });
    const after = await eventually('the renamed customer’s events relayed', async () => {
      const listed = await all(`&userId=${secondUser}&type=consent.authorized`, 100);
      return listed.length > before.filter((e) => e.type === 'consent.authorized').length
        ? listed
        : undefined;
    });
    // Newest first: the new consent under the new name, the earlier one still under the old.
    expect(after.map((e) => e.userReference)).toEqual([renamed, old]);
  });
});
