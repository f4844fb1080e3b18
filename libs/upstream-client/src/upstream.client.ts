import type { UpstreamTransport } from './upstream.transport.js';
import { UpstreamApplicationsOperations } from './upstream-applications.operations.js';
import type { AttemptObserver } from './upstream-attempt.observer.js';
import { transportFor, UpstreamClientCore, type UpstreamClientOptions } from './upstream-client.core.js';
import { UpstreamConsentsOperations } from './upstream-consents.operations.js';
import { UpstreamDataOperations } from './upstream-data.operations.js';
import { UpstreamInstitutionsOperations } from './upstream-institutions.operations.js';
import { UpstreamPaymentsOperations } from './upstream-payments.operations.js';
import { UpstreamUsersOperations } from './upstream-users.operations.js';
import { UpstreamVrpOperations } from './upstream-vrp.operations.js';
import { UpstreamWebhooksOperations } from './upstream-webhooks.operations.js';

export type { UpstreamClientOptions } from './upstream-client.core.js';
export type { CursorPagingQuery } from './upstream-data.operations.js';
export { RETRY_RULES } from './upstream-retry.rules.js';

/**
 * The typed client for every upstream operation the BFF uses, one namespace per group of the upstream's
 * interface (`upstream.consents.get(id)`, `upstream.data.transactionPages(…)`). Each method returns the
 * unwrapped `data` with `tracingId` and `requestId`, or throws {@link UpstreamError}. Paged lists come as
 * async iterators of pages (`…Pages`, `pages`) next to the single-page calls.
 *
 * The groups share one {@link UpstreamClientCore} over the client's one transport, so every call of a
 * client goes through one connection pool and one set of breakers whichever group it belongs to.
 */
export class UpstreamClient {
  /** Account authorisations and consents (spec §4.1, §4.8). */
  readonly consents: UpstreamConsentsOperations;
  /** Accounts, balances, transactions, statements, beneficiaries (spec §4.2). */
  readonly data: UpstreamDataOperations;
  /** Single payments and their authorisations. */
  readonly payments: UpstreamPaymentsOperations;
  /** Variable recurring payments (spec §4.3) and hosted VRP requests (§4.6). */
  readonly vrp: UpstreamVrpOperations;
  /** Users (spec §4.4). */
  readonly users: UpstreamUsersOperations;
  /** Sub-applications (spec §4.5). */
  readonly applications: UpstreamApplicationsOperations;
  readonly institutions: UpstreamInstitutionsOperations;
  /** Webhooks and the deprecated event subscriptions (spec §4.7). */
  readonly webhooks: UpstreamWebhooksOperations;
  private readonly transport: UpstreamTransport;

  constructor(options: UpstreamClientOptions) {
    this.transport = transportFor(options);
    const core = new UpstreamClientCore(this.transport);
    this.consents = new UpstreamConsentsOperations(core);
    this.data = new UpstreamDataOperations(core);
    this.payments = new UpstreamPaymentsOperations(core);
    this.vrp = new UpstreamVrpOperations(core);
    this.users = new UpstreamUsersOperations(core);
    this.applications = new UpstreamApplicationsOperations(core);
    this.institutions = new UpstreamInstitutionsOperations(core);
    this.webhooks = new UpstreamWebhooksOperations(core);
  }

  /**
   * The state of an institution's circuit breaker, or of the service-wide one for `upstream` (for
   * health pages and tests). An institution without a breaker (none failed lately) is `closed`.
   */
  breakerState(institutionId: string): 'closed' | 'open' | 'halfOpen' {
    return this.transport.breakerState(institutionId);
  }

  /** Tells `observer` of every attempt of every call from now on (the upstream call log). */
  observeAttempts(observer: AttemptObserver | undefined): void {
    this.transport.observeAttempts(observer);
  }

  /**
   * Institution ids that may label this client's metrics, as ids an institutions listing gave do: those
   * of the institutions cache, which a process that never lists institutions itself reads (else every
   * bank's breaker shows as `other`).
   */
  rememberInstitutions(ids: readonly string[]): void {
    this.transport.rememberInstitutions(ids);
  }

  /** Closes the connection pool; in-flight calls finish first. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
