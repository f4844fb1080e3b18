import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { tenantNamedByOperator } from '#libs/context';
import { DatabasePool } from '#libs/database';
import {
  MerchantEventRepository,
  type NewMerchantEvent,
  OutboxRelayService,
  UserEventsService,
} from '#libs/domain/events';
import { UserRepository } from '#libs/domain/users';
import {
  assertProperty,
  createUser,
  eventually,
  merchantCallerOf,
  onboard,
  propertyTimeout,
  sessionToken,
  type Tenant,
  tuned,
  useStack,
} from '../kit/index.js';
import { SseClient, type SseMessage } from '../kit/sse-client.js';

/**
 * Issue 24, defect 1, as an invariant: whatever the number of events (past 9, past a page, thousands),
 * the page size and the points where a client drops and resumes with Last-Event-ID, a user's stream
 * delivers every one of its events after the resume point exactly once, in numeric order, and nothing
 * of another user's.
 */

/** A small page, so a few dozen events already cross several page boundaries over HTTP. */
const HTTP_PAGE_SIZE = 7;

describe('property: the user event stream is every event once, in numeric order', () => {
  // The relay numbers every event of its database: this file has one of its own.
  const stack = useStack({
    ownDatabase: 'stream_props',
    overrides: {
      ...tuned({ ssePageSize: HTTP_PAGE_SIZE, sseHeartbeatSeconds: 1 }),
    },
  });
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await onboard(stack);
  });

  const newUser = async () =>
    (await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id)).id;

  /**
   * Moves the stream's numbering on to just below the next power of ten, so the events that follow cross
   * from n digits to n + 1 (where text order and numeric order part). Stops at 15 digits (ids stay below
   * 2^63 over any number of runs).
   */
  async function nearDigitBoundary(below: number): Promise<void> {
    await stack.api.app.get(DatabasePool).rows({
      text: `UPDATE outbox_relay_state SET last_stream_seq = power(10, length(last_stream_seq::text))::bigint - $1
        WHERE id = 1 AND length(last_stream_seq::text) < 15
          AND power(10, length(last_stream_seq::text))::bigint - $1 > last_stream_seq RETURNING 1`,
      values: [below],
    });
  }

  /** Records `count` events of the user (and one of a bystander between every few), then relays them. */
  async function record(userId: string, count: number, bystander: string): Promise<void> {
    if (count === 0) return;
    const events: NewMerchantEvent[] = Array.from({ length: count }, (_, i) => ({
      merchantId: tenant.merchant.merchant.id,
      userId: i % 3 === 2 ? bystander : userId,
      type: 'sync.succeeded' as const,
      data: { n: i },
    }));
    // The bystander's events are extra: the user still gets `count` of its own.
    events.push(
      ...Array.from({ length: Math.ceil(count / 3) }, (_, i) => ({
        merchantId: tenant.merchant.merchant.id,
        userId,
        type: 'sync.succeeded' as const,
        data: { extra: i },
      })),
    );
    await stack.api.app
      .get(DatabasePool)
      .transaction((db) => stack.api.app.get(MerchantEventRepository).record(db, events));
    await eventually('relayed', async () =>
      (await stack.api.app.get(OutboxRelayService).relayAll()).contended ? undefined : true,
    );
  }

  /** The user's relayed stream positions, as numbers, ascending. */
  async function positionsOf(userId: string): Promise<number[]> {
    const rows = await stack.api.app.get(DatabasePool).rows<{ seq: string }>({
      text: `SELECT stream_seq::text AS seq FROM merchant_events WHERE user_id = $1 AND stream_seq IS NOT NULL`,
      values: [userId],
    });
    return rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
  }

  it(
    'pages of any size, from any position, over any number of events',
    async () => {
      const service = stack.api.app.get(UserEventsService);
      const repository = stack.api.app.get(MerchantEventRepository);
      await assertProperty(
        fc.asyncProperty(
          fc.oneof(fc.nat(30), fc.nat(3_000)),
          fc.integer({ min: 1, max: 600 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.option(fc.nat(40)),
          async (count, pageSize, startAt, boundary) => {
            const [userId, bystander] = [await newUser(), await newUser()];
            if (boundary !== null) await nearDigitBoundary(boundary);
            await record(userId, count, bystander);
            const all = await positionsOf(userId);
            // Resume from nothing (0), or after any one of the user's own events.
            // (startAt is at most 1: at exactly 1, the last event.)
            const start =
              all.length === 0
                ? 0
                : [0, ...all][Math.min(all.length, Math.floor(startAt * (all.length + 1)))];
            const read: number[] = [];
            for (let position = String(start); ;) {
              const { events: page, refusal } = await repository.streamForCaller(
                tenantNamedByOperator({ kind: 'operator' }, tenant.merchant.merchant.id),
                userId,
                tenant.merchant.apiKey.id,
                position,
                pageSize,
              );
              expect(refusal).toBeNull();
              read.push(...page.map((e) => Number(e.streamSeq)));
              for (const e of page) expect(e.event.userId).toBe(userId);
              if (page.length < pageSize) break;
              position = page[page.length - 1].streamSeq;
            }
            expect(read).toEqual(all.filter((seq) => seq > start));
            // The service pages with the configured size and agrees.
            expect((await service.after(merchantCallerOf(tenant), userId, String(start))).events.length).toBe(
              Math.min(HTTP_PAGE_SIZE, read.length),
            );
          },
        ),
        25,
      );
    },
    propertyTimeout(120_000),
  );

  type Step = { record: number } | { reconnect: true };
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 3, arbitrary: fc.nat(40).map((n) => ({ record: n })) },
    { weight: 2, arbitrary: fc.constant({ reconnect: true as const }) },
  );

  it(
    'over HTTP: live events and reconnects at any point, resumed with Last-Event-ID',
    async () => {
      const url = (userId: string) => `${stack.api.url}/v1/users/${userId}/events`;
      await assertProperty(
        fc.asyncProperty(
          fc.nat(60),
          fc.constantFrom('replay-all', 'from-a-past-event', 'new-stream'),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.array(step, { maxLength: 8 }),
          fc.option(fc.nat(60)),
          async (history, start, startAt, steps, boundary) => {
            const [userId, bystander] = [await newUser(), await newUser()];
            const token = sessionToken(stack.api.config, {
              merchantId: tenant.merchant.merchant.id,
              userId,
            });
            if (boundary !== null) await nearDigitBoundary(boundary);
            await record(userId, history, bystander);
            const past = await positionsOf(userId);
            const from =
              start === 'replay-all'
                ? 0
                : start === 'new-stream'
                  ? (past[past.length - 1] ?? 0)
                  : ([0, ...past][Math.floor(startAt * (past.length + 1))] ?? 0);
            const received: SseMessage[] = [];
            let client = await SseClient.open(
              url(userId),
              token,
              start === 'new-stream' ? undefined : String(from),
            );
            const resume = async () => {
              client.close();
              received.push(...client.messages);
              const last = received[received.length - 1]?.id ?? String(from);
              client = await SseClient.open(url(userId), token, last);
            };
            for (const s of steps) {
              if ('record' in s) await record(userId, s.record, bystander);
              else await resume();
            }
            const expected = (await positionsOf(userId)).filter((seq) => seq > from);
            const last = expected[expected.length - 1];
            if (last !== undefined) {
              await eventually(`event ${last} streamed`, () =>
                [...received, ...client.messages].some((m) => Number(m.id) === last) ? true : undefined,
              );
            }
            // Nothing after the last: a heartbeat later (the stream looks again on every one), still nothing.
            const beats = () => client.comments.filter((c) => c === 'heartbeat').length;
            const before = beats();
            await eventually('a heartbeat', () => (beats() > before ? true : undefined));
            client.close();
            received.push(...client.messages);
            expect(received.map((m) => Number(m.id))).toEqual(expected);
            for (const m of received) expect(JSON.parse(m.data).userId).toBe(userId);
          },
        ),
        12,
      );
    },
    propertyTimeout(180_000),
  );
});
