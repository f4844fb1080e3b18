import { Counter, Histogram, type Registry } from 'prom-client';

/** What one attempt came to: delivered, failed with a retry to come, or failed for the last time. */
export type AttemptResult = 'delivered' | 'retrying' | 'given_up';

/**
 * Delivery attempts and lag, counted where they happen (the worker's delivery jobs). No endpoint or
 * merchant label: thousands of merchants would make thousands of series; which endpoints fail is the
 * database's answer (`bff_event_endpoints`), and theirs by name is GET /v1/event-endpoints/{id}/deliveries.
 */
export class EventDeliveryMetrics {
  private readonly attempts: Counter<'result'>;
  private readonly lag: Histogram;
  private readonly throttleWaits: Counter;

  constructor(registry: Registry) {
    this.attempts = reuse(
      registry,
      'bff_event_delivery_attempts_total',
      () =>
        new Counter({
          name: 'bff_event_delivery_attempts_total',
          help: 'Attempts to deliver a merchant event to an endpoint, by result: delivered (a 2xx), retrying (failed, tried again later), given_up (failed, its retries spent).',
          labelNames: ['result'],
          registers: [registry],
        }),
    );
    this.lag = reuse(
      registry,
      'bff_event_delivery_lag_seconds',
      () =>
        new Histogram({
          name: 'bff_event_delivery_lag_seconds',
          help: 'From an event recorded (its change committed) to its delivery acknowledged by the endpoint, retries included.',
          buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
          registers: [registry],
        }),
    );
    this.throttleWaits = reuse(
      registry,
      'bff_event_delivery_throttle_waits_total',
      () =>
        new Counter({
          name: 'bff_event_delivery_throttle_waits_total',
          help: 'Deliveries held back by their endpoint’s rate limit to wait for their turn (not attempts).',
          registers: [registry],
        }),
    );
  }

  attempted(result: AttemptResult): void {
    this.attempts.inc({ result });
  }

  throttled(): void {
    this.throttleWaits.inc();
  }

  delivered(eventCreatedAt: Date, deliveredAt: Date): void {
    this.attempted('delivered');
    this.lag.observe(Math.max(0, (deliveredAt.getTime() - eventCreatedAt.getTime()) / 1000));
  }
}

/** Two apps in one process (tests) each have their registry; a second instance on one registry shares. */
function reuse<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
