import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Non-closed breakers of one client, already labelled (see UpstreamTransport.labelOf). */
export type BreakerStates = () => Iterable<[label: string, state: 'open' | 'halfOpen']>;

/** Where a 429 came from: the upstream's own rate limit, or a bank's relayed in a 424. */
export type RateLimitSource = 'upstream' | 'institution';

/**
 * The clients reporting breaker states into each registry: the gauge is shared (see `reuse`), so its
 * scrape-time collect walks every client's breakers, not only the first one's.
 */
const breakerSources = new WeakMap<Registry, Set<BreakerStates>>();

/**
 * Per-operation metrics on the registry the app passes in. Labels are operation names and outcomes
 * (`success` or an error kind), never raw paths or ids, so cardinality stays bounded. The breaker's
 * `institution` label is an id seen in a successful institutions listing (at most 500, safe characters
 * only), `upstream` for the service-wide breaker, or `other`.
 */
export class UpstreamMetrics {
  private readonly duration: Histogram<'operation' | 'outcome'>;
  private readonly attempts: Histogram<'operation' | 'outcome'>;
  private readonly retries: Counter<'operation'>;
  private readonly breakerTransitions: Counter<'institution' | 'state'>;
  private readonly rateLimits: Counter<'institution' | 'source'>;
  private readonly breakerSources: Set<BreakerStates>;

  constructor(registry: Registry) {
    this.breakerSources = breakerSources.get(registry) ?? new Set();
    breakerSources.set(registry, this.breakerSources);
    this.duration = latencyByOutcome(
      registry,
      'upstream_request_duration_seconds',
      'Upstream call latency per operation, retries included, by outcome (success or error kind).',
    );
    this.attempts = latencyByOutcome(
      registry,
      'upstream_attempt_duration_seconds',
      'One HTTP exchange with the upstream (queue wait included, retry waits not), by outcome.',
    );
    this.retries = reuse(
      registry,
      'upstream_retries_total',
      () =>
        new Counter({
          name: 'upstream_retries_total',
          help: 'Upstream retries per operation.',
          labelNames: ['operation'],
          registers: [registry],
        }),
    );
    this.breakerTransitions = reuse(
      registry,
      'upstream_circuit_transitions_total',
      () =>
        new Counter({
          name: 'upstream_circuit_transitions_total',
          help: 'Circuit breaker state changes per institution (`upstream`: the service-wide breaker; `other`: ids not seen in an institutions listing).',
          labelNames: ['institution', 'state'],
          registers: [registry],
        }),
    );
    this.rateLimits = reuse(
      registry,
      'bff_upstream_rate_limited_total',
      () =>
        new Counter({
          name: 'bff_upstream_rate_limited_total',
          help: 'Upstream answers that were 429s, per institution (`none`: a call for no institution) and source: `upstream` (the aggregator limits our application), `institution` (a 424 relaying the bank’s 429). Every attempt counts, retries included.',
          labelNames: ['institution', 'source'],
          registers: [registry],
        }),
    );
    const sources = this.breakerSources;
    reuse(
      registry,
      'bff_upstream_circuit_state',
      () =>
        new Gauge({
          name: 'bff_upstream_circuit_state',
          help: 'Circuit breakers of this process that are not closed, per institution and state: `open` refuses calls, `half_open` lets the next one through as a test. `upstream` (the service-wide breaker) is always present; a closed institution has no series.',
          labelNames: ['institution', 'state'],
          registers: [registry],
          collect() {
            this.reset();
            this.set({ institution: 'upstream', state: 'open' }, 0);
            this.set({ institution: 'upstream', state: 'half_open' }, 0);
            for (const source of sources) {
              for (const [institution, state] of source()) {
                this.inc({ institution, state: state === 'halfOpen' ? 'half_open' : 'open' });
              }
            }
          },
        }),
    );
  }

  /** Reports `states` in the breaker gauge until the returned function is called (the client closes). */
  reportBreakers(states: BreakerStates): () => void {
    this.breakerSources.add(states);
    return () => this.breakerSources.delete(states);
  }

  rateLimited(institution: string, source: RateLimitSource): void {
    this.rateLimits.inc({ institution, source });
  }

  observe(operation: string, outcome: string, seconds: number): void {
    this.duration.observe({ operation, outcome }, seconds);
  }

  observeAttempt(operation: string, outcome: string, seconds: number): void {
    this.attempts.observe({ operation, outcome }, seconds);
  }

  retried(operation: string): void {
    this.retries.inc({ operation });
  }

  breaker(institution: string, state: 'open' | 'halfOpen' | 'closed'): void {
    this.breakerTransitions.inc({ institution, state });
  }
}

/** A second client on the same registry shares the metrics instead of failing on a duplicate name. */
function reuse<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}

/** A latency histogram by operation and outcome; a call's and an attempt's share buckets, to be compared. */
function latencyByOutcome(
  registry: Registry,
  name: string,
  help: string,
): Histogram<'operation' | 'outcome'> {
  return reuse(
    registry,
    name,
    () =>
      new Histogram({
        name,
        help,
        labelNames: ['operation', 'outcome'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers: [registry],
      }),
  );
}
