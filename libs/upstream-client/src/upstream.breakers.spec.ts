import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '#libs/testing';
import { breakerKey, Breakers, type BreakerTicket } from './upstream.breakers.js';
import { UpstreamError } from './upstream.error.js';
import { type BreakerOptions, DEFAULT_BREAKER, judge, SERVICE_BREAKER } from './upstream-breaker.js';

const error = (init: Partial<ConstructorParameters<typeof UpstreamError>[1]>, cause?: unknown) =>
  new UpstreamError('x', { kind: 'UNAVAILABLE', shape: 'standard', retryable: true, ...init, cause });
const coded = (code: string) => Object.assign(new Error(code), { code });
const refused = () => error({ shape: 'network' }, coded('ECONNREFUSED'));

/** Every way a call that reached the upstream can fail for a bank's sake, as the upstream may label it. */
const BANK_FAILURES = [
  error({ kind: 'INSTITUTION', status: 424, source: 'INSTITUTION' }),
  error({ status: 500, source: 'INSTITUTION' }),
  // An upstream may blame itself for a bank's fault (the sandbox's flaky bank did).
  error({ status: 500, source: 'YAPILY' }),
  error({ status: 502 }),
  error({ status: 503 }),
  error({ shape: 'timeout' }),
  error({ shape: 'network' }, coded('UND_ERR_SOCKET')),
];

const breakersWith = (options: Partial<BreakerOptions> = {}) => {
  const changes: [string, string][] = [];
  const breakers = new Breakers(
    { ...DEFAULT_BREAKER, ...options },
    { onChange: (key, state) => changes.push([key, state]) },
  );
  return { breakers, changes };
};

/** Admits and reports one call; the ticket's error when refused. */
async function call(
  breakers: Breakers,
  institutionId: string | undefined,
  outcome?: unknown,
  merchant?: string,
  operation = 'op',
) {
  const ticket = await breakers
    .admit({ institutionId, merchant, operation, requestId: 'r' })
    .catch((refusal: UpstreamError) => refusal);
  if (ticket instanceof UpstreamError) return ticket;
  ticket.done(outcome, outcome === undefined);
  return undefined;
}

describe('what an outcome says', () => {
  it('tells the unreachable upstream, failures, answers and nothing apart', () => {
    expect(judge(refused())).toBe('unreachable');
    expect(judge(error({ shape: 'network' }, coded('ENOTFOUND')))).toBe('unreachable');
    for (const failure of BANK_FAILURES) expect(judge(failure)).toBe('failure');
    expect(judge(error({ kind: 'CALLER', status: 400 }))).toBe('answered');
    expect(judge(error({ kind: 'NOT_FOUND', status: 404 }))).toBe('answered');
    expect(judge(error({ kind: 'RATE_LIMITED', status: 429 }))).toBe('nothing');
    expect(judge(error({ status: 501 }))).toBe('nothing');
    expect(judge(error({ shape: 'circuitOpen' }))).toBe('nothing');
    expect(judge(new Error('a bug of ours'))).toBe('nothing');
  });
});

describe('bulkheads', () => {
  it('cuts off a failing bank alone, whatever the upstream says its source is', async () => {
    for (const failure of BANK_FAILURES) {
      const { breakers } = breakersWith();
      for (let i = 0; i < 20; i++) await call(breakers, 'flaky', failure);
      expect(breakers.state('flaky')).toBe('open');
      expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
      expect(await call(breakers, 'other-bank')).toBeUndefined();
      expect(await call(breakers, undefined)).toBeUndefined();
      expect(await call(breakers, 'flaky')).toMatchObject({ shape: 'circuitOpen' });
    }
  });

  it('opens the service-wide breaker when several banks fail within the window, not when they fail apart', async () => {
    const { breakers } = breakersWith({ spreadInstitutions: 3, spreadWindowMs: 60_000 });
    await call(breakers, 'a', error({ status: 500 }));
    await call(breakers, 'b', error({ status: 500 }));
    expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
    await call(breakers, 'c', error({ status: 503 }));
    expect(breakers.state(SERVICE_BREAKER)).toBe('open');
    expect(await call(breakers, 'd')).toMatchObject({ shape: 'circuitOpen' });

    const apart = breakersWith({ spreadInstitutions: 3, spreadWindowMs: 0 }).breakers;
    for (const bank of ['a', 'b', 'c', 'd', 'e']) await call(apart, bank, error({ status: 500 }));
    expect(apart.state(SERVICE_BREAKER)).toBe('closed');
  });

  it('cuts off one merchant’s failing operation alone when its calls name no bank', async () => {
    const { breakers } = breakersWith({ consecutiveFailures: 2 });
    for (let i = 0; i < 10; i++) await call(breakers, undefined, error({ status: 500 }), 'a', 'addUser');
    expect(breakers.state(breakerKey({ merchant: 'a', operation: 'addUser' }).key)).toBe('open');
    expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
    expect(await call(breakers, undefined, error({ status: 500 }), 'a', 'addUser')).toMatchObject({
      shape: 'circuitOpen',
    });
    // Its other operations, another merchant's same one, and every bank still go through.
    for (let i = 0; i < 3; i++) await call(breakers, undefined, error({ status: 500 }), 'a', 'getUsers');
    expect(await call(breakers, undefined, undefined, 'b', 'addUser')).toBeUndefined();
    expect(await call(breakers, 'bank')).toBeUndefined();
    expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
  });

  it('opens it when several merchants’ calls fail, and on an unreachable upstream for any bank', async () => {
    const { breakers } = breakersWith({ spreadInstitutions: 3 });
    for (const merchant of ['a', 'b']) await call(breakers, undefined, error({ status: 500 }), merchant);
    expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
    await call(breakers, 'bank', error({ status: 500 }));
    expect(breakers.state(SERVICE_BREAKER)).toBe('open');

    const down = breakersWith({ consecutiveFailures: 2 }).breakers;
    await call(down, 'a', error({ kind: 'NOT_FOUND', status: 404 }));
    await call(down, 'a', refused());
    await call(down, 'b', refused());
    expect(down.state(SERVICE_BREAKER)).toBe('open');
    expect(down.state('a')).toBe('closed');
  });

  it('forgets a source that succeeded since it failed', async () => {
    const { breakers } = breakersWith({ spreadInstitutions: 3 });
    await call(breakers, 'a', error({ status: 500 }));
    await call(breakers, 'a');
    await call(breakers, 'b', error({ status: 500 }));
    await call(breakers, 'c', error({ status: 500 }));
    expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
  });

  it('does not open on an unreachable upstream before it ever answered (a cold start)', async () => {
    const { breakers } = breakersWith({ consecutiveFailures: 2 });
    for (let i = 0; i < 10; i++) await call(breakers, undefined, refused());
    expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
    // A 500 is an answer: after it, an unreachable upstream counts from the start.
    await call(breakers, undefined, error({ status: 500, source: 'YAPILY' }));
    for (let i = 0; i < 2; i++) await call(breakers, undefined, refused());
    expect(breakers.state(SERVICE_BREAKER)).toBe('open');
  });

  it('never lets one bank, however it fails, refuse a call to another', async () => {
    const failure = fc.constantFrom(...BANK_FAILURES, undefined, error({ kind: 'CALLER', status: 400 }));
    await assertProperty(
      fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), failure), { maxLength: 60 }), async (calls) => {
        const { breakers } = breakersWith({ consecutiveFailures: 3, halfOpenAfterMs: 0 });
        for (const [toOther, outcome] of calls) {
          const refusal = await call(
            breakers,
            toOther ? 'healthy-bank' : 'failing-bank',
            toOther ? undefined : outcome,
          );
          if (toOther) expect(refusal).toBeUndefined();
        }
        expect(breakers.state(SERVICE_BREAKER)).toBe('closed');
      }),
      200,
    );
  });
});

describe('half-open: one probe, the others wait for its answer', () => {
  async function halfOpen() {
    const { breakers, changes } = breakersWith({ consecutiveFailures: 1, halfOpenAfterMs: 0 });
    await call(breakers, 'bank', error({ status: 502 }));
    const probe = await breakers.admit({ institutionId: 'bank', operation: 'op', requestId: 'probe' });
    const waiting = [1, 2, 3].map((i) =>
      breakers.admit({ institutionId: 'bank', operation: 'op', requestId: `w${i}` }).then(
        (ticket) => ticket,
        (refusal: UpstreamError) => refusal,
      ),
    );
    return { breakers, changes, probe, waiting };
  }

  it('lets the waiting calls through when the probe succeeds', async () => {
    const { breakers, probe, waiting } = await halfOpen();
    probe.done(undefined, true);
    for (const ticket of await Promise.all(waiting)) expect(ticket).not.toBeInstanceOf(UpstreamError);
    expect(breakers.state('bank')).toBe('closed');
  });

  it('refuses them when the probe fails', async () => {
    const { probe, waiting } = await halfOpen();
    probe.done(error({ status: 502 }), false);
    for (const refusal of await Promise.all(waiting)) expect(refusal).toMatchObject({ shape: 'circuitOpen' });
  });

  it('hands the probe to the next when it proves nothing', async () => {
    const { breakers, probe, waiting } = await halfOpen();
    probe.done(error({ kind: 'NOT_FOUND', status: 404 }), false);
    const next = await waiting[0];
    if (next instanceof UpstreamError) throw next;
    next.done(undefined, true);
    for (const ticket of await Promise.all(waiting.slice(1)))
      expect(ticket).not.toBeInstanceOf(UpstreamError);
    expect(breakers.state('bank')).toBe('closed');
  });

  it('refuses a waiting call whose time runs out before the probe answers', async () => {
    const { breakers, probe } = await halfOpen();
    const refusal = await breakers
      .admit({ institutionId: 'bank', operation: 'op', requestId: 'late' }, 10)
      .catch((e: UpstreamError) => e);
    expect(refusal).toMatchObject({ shape: 'circuitOpen' });
    probe.done(undefined, true);
  });

  it('settles every waiting call, one probe at a time, whatever the probes answer', async () => {
    const outcome = fc.constantFrom<unknown>(
      undefined,
      error({ status: 502 }),
      error({ kind: 'NOT_FOUND', status: 404 }),
      new Error('a bug of ours'),
    );
    await assertProperty(
      fc.asyncProperty(fc.array(outcome, { maxLength: 6 }), async (outcomes) => {
        const { probe, waiting } = await halfOpen();
        const settled: (BreakerTicket | UpstreamError | undefined)[] = waiting.map(() => undefined);
        waiting.forEach((p, i) => void p.then((value) => (settled[i] = value)));
        const flush = () => new Promise((resolve) => setImmediate(resolve));
        let current: BreakerTicket | undefined = probe;
        const handedOver = new Set<number>();
        for (const result of outcomes) {
          if (!current) break;
          current.done(result, result === undefined);
          await flush();
          // An inconclusive answer hands the probe to exactly one waiting call; any other ends the wait.
          const fresh = settled.flatMap((v, i) => (v && !handedOver.has(i) ? [i] : []));
          const stillWaiting = settled.filter((v) => v === undefined).length;
          if (stillWaiting > 0) expect(fresh.length).toBeLessThanOrEqual(1);
          current = undefined;
          if (stillWaiting > 0 && fresh.length === 1) {
            handedOver.add(fresh[0]);
            const next = settled[fresh[0]];
            if (next instanceof UpstreamError) throw next;
            current = next;
          }
        }
        // However the answers went, a last healthy one (or none needed) leaves nobody waiting.
        current?.done(undefined, true);
        await flush();
        expect(settled.filter((v) => v === undefined)).toEqual([]);
      }),
      200,
    );
  });
});

describe('the breakers a process keeps', () => {
  it('keeps a bounded number of institution breakers, only while they count failures', async () => {
    const { breakers } = breakersWith({ maxBreakers: 2 });
    for (const id of ['a', 'b', 'c']) await call(breakers, id, error({ status: 502 }));
    expect(breakers.size).toBe(2);
    await call(breakers, 'c');
    expect(breakers.size).toBe(1);
    // Ids that never failed get no breaker at all.
    await call(breakers, 'never-failed', error({ kind: 'CALLER', status: 400 }));
    expect(breakers.size).toBe(1);
  });

  it('shows a breaker open only while it refuses calls: an idle one past its wait awaits its probe', async () => {
    const { breakers } = breakersWith({ consecutiveFailures: 1, halfOpenAfterMs: 1000 });
    await call(breakers, 'bank', error({ status: 502 }));
    const now = Date.now();
    expect([...breakers.unwell(now)]).toEqual([['bank', 'open']]);
    expect([...breakers.unwell(now + 1000)]).toEqual([['bank', 'halfOpen']]);
    expect(breakers.state('bank')).toBe('open');
    const quick = breakersWith({ consecutiveFailures: 1, halfOpenAfterMs: 0 }).breakers;
    await call(quick, 'bank', error({ status: 502 }));
    await call(quick, 'bank');
    expect([...quick.unwell()]).toEqual([]);
  });
});
