import { Counter, Histogram, type Registry } from 'prom-client';

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

  constructor(registry: Registry) {
    this.duration = reuse(
      registry,
      'upstream_request_duration_seconds',
      () =>
        new Histogram({
          name: 'upstream_request_duration_seconds',
          help: 'Upstream call latency per operation, retries included, by outcome (success or error kind).',
          labelNames: ['operation', 'outcome'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers: [registry],
        }),
    );
    this.attempts = reuse(
      registry,
      'upstream_attempt_duration_seconds',
      () =>
        new Histogram({
          name: 'upstream_attempt_duration_seconds',
          help: 'One HTTP exchange with the upstream (queue wait included, retry waits not), by outcome.',
          labelNames: ['operation', 'outcome'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers: [registry],
        }),
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
