import { Counter, type Registry } from 'prom-client';

/**
 * Why a payment reached its final status, a closed set: the bank's own status (webhook, poll, or its
 * answer to the submission), a person settling a parked payment, a user who never authorised it, or the
 * bank refusing the submission (`refused_<upstream error kind>`, `refused_no_token` when the consent held
 * no token to send it with).
 */
export type FinalReason = 'bank' | 'operator' | 'not_authorised' | `refused_${string}`;

/**
 * Payments reaching a final status, counted where the one writer of final statuses writes them (in the
 * writing transaction: one that rolls back afterwards may have counted). No merchant label: which
 * merchant's payments failed is GET /admin/payments/parked and the worker's log lines.
 */
export class PaymentMetrics {
  private readonly finals: Counter<'status' | 'kind' | 'reason'>;

  constructor(registry: Registry) {
    // Two apps in one process (tests) each have their registry; a second instance on one registry shares.
    this.finals =
      (registry.getSingleMetric('bff_payments_final_total') as
        Counter<'status' | 'kind' | 'reason'> | undefined) ??
      new Counter({
        name: 'bff_payments_final_total',
        help: 'Payments that reached a final status, by status, kind (SINGLE, VRP) and reason: bank (its own status), operator (a person settled a parked payment), not_authorised (the user never did), refused_<kind> (the bank refused the submission: the upstream error kind, lower case; no_token when the consent had none).',
        labelNames: ['status', 'kind', 'reason'],
        registers: [registry],
      });
  }

  finalised(status: string, kind: string, reason: FinalReason): void {
    this.finals.inc({ status, kind, reason });
  }
}
