import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantId } from '#libs/context';
import { ConnectFunnelRepository, FUNNEL_COUNTS } from '#libs/domain/consents';
import {
  ApiClient,
  assertProperty,
  dataOf,
  decideAtBank,
  type ErrorBody,
  onboard,
  propertyTimeout,
  sessionToken,
  useStack,
  useTenant,
} from '../kit/index.js';

const STEPS = ['chose', 'sentToBank', 'returned'] as const;
const ENDS = ['connected', 'declined', 'cancelled', 'failed', 'closed'] as const;
const COUNTS = FUNNEL_COUNTS;

type Report = Record<string, string | undefined>;
interface Row extends Record<(typeof COUNTS)[number], number> {
  institutionId: string | null;
  errors: { step: string; reason: string; attempts: number }[];
}

/** One attempt as a user makes it: a bank or none, how far they got, an error on the way, how it ended. */
interface Attempt {
  id: string;
  institutionId: string | null;
  searched: boolean;
  /** How many of STEPS it reached (none without a bank). */
  reached: number;
  error?: string;
  end?: (typeof ENDS)[number];
  /** The code of a `failed` end. */
  failure: string;
}

const attemptArbitrary: fc.Arbitrary<Attempt> = fc
  .record({
    institutionId: fc.constantFrom('sandbox-redirect', 'sandbox-embedded', null),
    searched: fc.boolean(),
    reached: fc.integer({ min: 0, max: 3 }),
    error: fc.option(fc.constantFrom('VALIDATION_FAILED', 'NETWORK_ERROR'), { nil: undefined }),
    end: fc.option(fc.constantFrom(...ENDS), { nil: undefined }),
    failure: fc.constantFrom('UPSTREAM_UNAVAILABLE', 'CONSENT_FAILED'),
  })
  // A bank is named only by the steps that reach it: an attempt that chose none has none.
  .map((a) => {
    const reached = a.institutionId === null ? 0 : a.reached;
    return { ...a, reached, institutionId: reached === 0 ? null : a.institutionId, id: randomUUID() };
  });

/** The reports the component sends for an attempt, in the order it sends them. */
function reportsOf(a: Attempt): Report[] {
  const at = { attemptId: a.id };
  const bank = a.institutionId ? { institutionId: a.institutionId } : {};
  const reports: Report[] = [{ ...at, event: 'opened' }];
  if (a.searched) reports.push({ ...at, event: 'searched' });
  for (const step of STEPS.slice(0, a.reached)) reports.push({ ...at, ...bank, event: step });
  if (a.error) reports.push({ ...at, event: 'error', reason: a.error });
  if (a.end === 'failed') reports.push({ ...at, event: 'failed', reason: a.failure });
  else if (a.end) reports.push({ ...at, event: a.end });
  return reports;
}

/** The funnel the attempts must make: the oracle, from the rules the API documents. */
function expectedRows(attempts: Attempt[]): Row[] {
  const rows = new Map<string | null, Row>();
  for (const a of attempts) {
    const row =
      rows.get(a.institutionId) ??
      ({
        institutionId: a.institutionId,
        errors: [],
        ...Object.fromEntries(COUNTS.map((c) => [c, 0])),
      } as unknown as Row);
    row.opened += 1;
    if (a.searched) row.searched += 1;
    for (const step of STEPS.slice(0, a.reached)) row[step] += 1;
    const end = a.end === 'closed' ? 'abandoned' : (a.end ?? 'inProgress');
    row[end] += 1;
    const reason = a.end === 'failed' ? a.failure : a.error;
    if (reason) {
      const step = a.reached > 0 ? STEPS[a.reached - 1] : a.searched ? 'searched' : 'opened';
      const seen = row.errors.find((e) => e.step === step && e.reason === reason);
      if (seen) seen.attempts += 1;
      else row.errors.push({ step, reason, attempts: 1 });
    }
    rows.set(a.institutionId, row);
  }
  const byAttempts = (x: Row['errors'][number], y: Row['errors'][number]) =>
    y.attempts - x.attempts || x.step.localeCompare(y.step) || x.reason.localeCompare(y.reason);
  return [...rows.values()]
    .map((row) => ({ ...row, errors: row.errors.sort(byAttempts) }))
    .sort((x, y) => (x.institutionId ?? '').localeCompare(y.institutionId ?? ''));
}

describe('insights: the connect funnel, from the reports of <bff-connect>', () => {
  // Its own database: the operator's figures cover every merchant there is.
  const stack = useStack({ ownDatabase: 'connect-funnel' });
  const tenant = useTenant(stack);
  let secondApi: ApiClient;

  beforeAll(async () => {
    secondApi = new ApiClient((await stack.startApi()).url);
  });

  const report = (client: ApiClient, body: Report) => client.post('/v1/connect-funnel/reports', body);
  const funnelOf = async (client: ApiClient) =>
    dataOf<{ institutions: Row[]; days: (Row & { day: string })[] }>(
      await client.get('/v1/insights/connect-funnel'),
    );

  it(
    'equals the attempts made, whatever the retries, their order across attempts and the api that files each',
    async () => {
      await assertProperty(
        fc.asyncProperty(
          fc.array(attemptArbitrary, { minLength: 1, maxLength: 12 }),
          fc.array(fc.record({ again: fc.constantFrom('no', 'now', 'late'), second: fc.boolean() }), {
            minLength: 1,
          }),
          fc.array(fc.nat(), { minLength: 1 }),
          async (attempts, deliveries, picks) => {
            const merchant = await onboard(stack);
            const clients = [merchant.client, secondApi.as(merchant.client.token)];
            // Each attempt's reports in its own order, attempts interleaved; a retry at once or at the end.
            const queues = attempts.map(reportsOf);
            const late: Report[] = [];
            const sent: [Report, boolean][] = [];
            while (queues.some((q) => q.length > 0)) {
              const open = queues.filter((q) => q.length > 0);
              const next = open[picks[sent.length % picks.length] % open.length].shift()!;
              const value = deliveries[sent.length % deliveries.length];
              sent.push([next, value.second]);
              if (value.again === 'now') sent.push([next, !value.second]);
              if (value.again === 'late') late.push(next);
            }
            for (const again of late) sent.push([again, true]);
            for (const [body, second] of sent) {
              const answer = await report(clients[second ? 1 : 0], body);
              expect(answer.status, JSON.stringify(answer.body)).toBe(204);
            }
            const served = await funnelOf(merchant.client);
            expect(served.institutions).toEqual(expectedRows(attempts));
          },
        ),
        15,
      );
    },
    propertyTimeout(120_000),
  );

  it('takes a user session’s reports, names the attempt by its consent after the bank, and keeps merchants apart', async () => {
    const other = await onboard(stack);
    const session = tenant.client.as(
      sessionToken(stack.api.config, { merchantId: tenant.merchant.merchant.id, userId: tenant.userId }),
    );
    const attemptId = randomUUID();
    const consentId = randomUUID();
    for (const body of [
      { attemptId, event: 'opened' },
      { attemptId, event: 'chose', institutionId: 'sandbox-redirect' },
      { attemptId, event: 'sentToBank', institutionId: 'sandbox-redirect', consentId },
    ]) {
      expect((await report(session, body)).status).toBe(204);
    }
    // Another merchant naming the same attempt and consent changes nothing of it, nor makes one of its own.
    for (const body of [
      { attemptId, event: 'failed', reason: 'UPSTREAM_UNAVAILABLE' },
      { consentId, event: 'declined' },
    ]) {
      expect((await report(other.client, body)).status).toBe(204);
    }
    // Back from the bank, the page knows only the consent.
    expect((await report(session, { consentId, event: 'returned' })).status).toBe(204);
    expect((await report(session, { consentId, event: 'connected' })).status).toBe(204);
    const mine = (await funnelOf(tenant.client)).institutions.find(
      (r) => r.institutionId === 'sandbox-redirect',
    );
    expect(mine).toMatchObject({ opened: 1, chose: 1, sentToBank: 1, returned: 1, connected: 1, failed: 0 });
    expect((await funnelOf(other.client)).institutions).toEqual([]);

    // The operator: every merchant's together, or one merchant's as that merchant sees it.
    const one = dataOf(
      await stack.operator.get(`/admin/insights/connect-funnel?merchantId=${other.merchant.merchant.id}`),
    );
    expect(one).toEqual(await funnelOf(other.client));
    const all = dataOf<{ institutions: Row[] }>(await stack.operator.get('/admin/insights/connect-funnel'));
    const opened = (rows: Row[]) => rows.reduce((sum, r) => sum + r.opened, 0);
    expect(opened(all.institutions)).toBeGreaterThanOrEqual(
      opened((await funnelOf(tenant.client)).institutions) + 1,
    );
    expect((await tenant.client.get('/admin/insights/connect-funnel')).status).toBe(403);
    expect((await session.get('/v1/insights/connect-funnel')).status).toBe(403);
    expect(
      (await stack.anonymous.post('/v1/connect-funnel/reports', { attemptId, event: 'opened' })).status,
    ).toBe(401);
  });

  it('files the return from the bank itself, when the merchant’s page never says it', async () => {
    const merchant = await onboard(stack);
    const apps = { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url };
    // Approved and denied at the bank, the component's reports stopping as the browser left for it.
    const returns: { consentId: string; end: string }[] = [];
    for (const decision of ['approve', 'deny'] as const) {
      const consent = dataOf<{ id: string; authorisationUrl: string }>(
        await merchant.client.post(`/v1/users/${merchant.userId}/consents`, {
          institutionId: 'sandbox-redirect',
          redirectUrl: 'https://app.merchant.example/banks/done',
        }),
        201,
      );
      const attemptId = randomUUID();
      const bank = { institutionId: 'sandbox-redirect' };
      for (const body of [
        { attemptId, event: 'opened' },
        { attemptId, event: 'chose', ...bank },
        { attemptId, event: 'sentToBank', ...bank, consentId: consent.id },
      ]) {
        expect((await report(merchant.client, body)).status).toBe(204);
      }
      const back = await decideAtBank(apps, consent.authorisationUrl, decision);
      expect(back.status).toBe(302);
      const end = back.location.searchParams.get('status') === 'AUTHORIZED' ? 'connected' : 'declined';
      returns.push({ consentId: consent.id, end });
    }
    const filed = { sentToBank: 2, returned: 2, connected: 1, declined: 1, inProgress: 0 };
    expect((await funnelOf(merchant.client)).institutions).toEqual([expect.objectContaining(filed)]);
    // The component's own reports, when the page does load again, come second and change nothing.
    for (const { consentId, end } of returns) {
      for (const event of ['returned', end]) {
        expect((await report(merchant.client, { consentId, event })).status).toBe(204);
      }
    }
    expect((await funnelOf(merchant.client)).institutions).toEqual([expect.objectContaining(filed)]);
  });

  it('counts an attempt with no end as abandoned once it has been quiet past the hour', async () => {
    const merchant = await onboard(stack);
    const attemptId = randomUUID();
    expect((await report(merchant.client, { attemptId, event: 'opened' })).status).toBe(204);
    const funnel = stack.api.app.get(ConnectFunnelRepository);
    const today = new Date().toISOString().slice(0, 10);
    const range = (quietSince: Date) => ({ from: today, to: today, quietSince });
    const merchantId = merchant.merchant.merchant.id as MerchantId;
    // The api's own read: heard from just now, so in progress.
    expect((await funnelOf(merchant.client)).institutions).toEqual([
      expect.objectContaining({ inProgress: 1, abandoned: 0 }),
    ]);
    // As the read counts it once CONNECT_IDLE_MS has passed without a word: quiet since the cut-off.
    const later = await funnel.ofMerchant(merchantId, range(new Date(Date.now() + 1_000)));
    expect(later.institutions).toEqual([expect.objectContaining({ inProgress: 0, abandoned: 1 })]);
  });

  it('refuses a report it could not file, naming the field and why', async () => {
    const merchant = await onboard(stack);
    const attemptId = randomUUID();
    const cases: [Report | Record<string, unknown>, string, RegExp][] = [
      [{ event: 'opened' }, 'attemptId', /required unless consentId/],
      [{ attemptId: 'attempt-1', event: 'opened' }, 'attemptId', /UUID/],
      [{ attemptId, event: 'finished' }, 'event', /one of opened, searched/],
      [{ attemptId, event: 'failed' }, 'reason', /required on error and failed/],
      [{ attemptId, event: 'error', reason: 'wrong password for jo@example.com' }, 'reason', /error code/],
      [
        { attemptId, event: 'opened', reason: 'NETWORK_ERROR' },
        'reason',
        /only for the events error and failed/,
      ],
      [{ attemptId, event: 'chose', institutionId: 'a bank!' }, 'institutionId', /institution id/],
      [{ consentId: 'x', event: 'returned' }, 'consentId', /UUID/],
      [{ attemptId, event: 'opened', userEmail: 'jo@example.com' }, 'userEmail', /should not exist/],
    ];
    for (const [body, field, issue] of cases) {
      const answer = await merchant.client.post<ErrorBody>('/v1/connect-funnel/reports', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
      const detail = answer.body.error.details?.find((d) => d.field === field);
      expect(detail?.issue, JSON.stringify(answer.body)).toMatch(issue);
    }
    // Nothing of the refused reports was filed.
    expect((await funnelOf(merchant.client)).institutions).toEqual([]);
  });
});
