import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { PAYMENT_KINDS, UNFINISHED_PAYMENT_STATUSES } from '#libs/domain/payments';
import { type AppLogger, LOGGER, Metrics, RefreshingSnapshot, SnapshotHistogram } from '#libs/observability';
import { REDIS, type RedisClient } from '#libs/redis';
import { defineConsentGauges } from './consent-gauges.js';
import {
  type DatabaseSnapshot,
  DatabaseSnapshotService,
  SYNC_LAG_BUCKETS,
} from './database-snapshot.service.js';
import { defineInstitutionHealthGauges } from './institution-health-gauges.js';
import { busiestInstitutions, INSTITUTION_LABELS, OTHER_INSTITUTIONS } from './institution-labels.js';
import { withDeadline } from './metrics-deadline.js';
import { SharedSnapshot } from './shared-snapshot.js';

/** Bumped with every change to DatabaseSnapshot's shape (it names the shared key). */
const SNAPSHOT_VERSION = 5;

/**
 * The gauges that come from Postgres, each an aggregate statement on an index in the table's owning
 * repository, never a row per account or event. Only workers have them, and however many are scraped the
 * statements run once per `tuning.workerMetricsRefreshSeconds` in the whole deployment, one after the other on one connection (their
 * cost at scale: `npm run bench:scale`): one worker reads and the
 * others show its snapshot (SharedSnapshot, through Redis). Every worker shows the same deployment-wide
 * figures: aggregate them with max, not sum. No merchant label anywhere.
 */
@Injectable()
export class DatabaseMetricsCollector {
  private readonly snapshot: RefreshingSnapshot<DatabaseSnapshot>;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly figures: DatabaseSnapshotService,
    @Inject(REDIS) redis: RedisClient,
    metrics: Metrics,
  ) {
    const refreshMs = config.tuning.workerMetricsRefreshSeconds * 1000;
    const shared = new SharedSnapshot(
      redis,
      // Versioned: a worker of another release (a rolling deploy) may leave a snapshot of another shape.
      `${config.redis.queuePrefix}:metrics:database:v${SNAPSHOT_VERSION}`,
      refreshMs,
      () => this.load(),
      logger,
    );
    // Looked at twice a refresh: a copy may already be up to a refresh old when found, so what is shown
    // stays within about two refreshes of its read (the snapshot age alert's line) while reads succeed.
    this.snapshot = new RefreshingSnapshot(
      () => shared.load(),
      refreshMs / 2,
      (error) => this.failed(error),
    );
    const registers = [metrics.registry];
    const gauge = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      fill: (gauge: Gauge<L>, snapshot: DatabaseSnapshot) => void,
    ) => {
      const snapshot = this.snapshot;
      return new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const read = await snapshot.get();
          if (read) fill(this, read);
        },
      });
    };

    new SnapshotHistogram({
      name: 'bff_sync_lag_seconds',
      help: 'Accounts that sync, by time since their last finished sync (now − last_synced_at), counted by Postgres per bucket; accounts of disabled merchants and those awaiting a first sync are left out.',
      buckets: SYNC_LAG_BUCKETS,
      registers,
      collect: async () => (await this.snapshot.get())?.syncLag,
    });
    gauge(
      'bff_sync_accounts_awaiting_first_sync',
      'Accounts that sync but have not finished a first sync.',
      [],
      (g, s) => g.set(s.syncLag.neverSynced),
    );
    gauge(
      'bff_sync_daily_limit_accounts',
      `Per institution holding any account for its daily allowance of reads without the user (the bank's 429; the account's sync.dailyLimitUntil): held, those accounts, and syncing, all its accounts that sync (held ones included). The ${INSTITUTION_LABELS} holding most; the rest as ${OTHER_INSTITUTIONS}.`,
      ['institution', 'state'],
      (g, s) => {
        g.reset();
        const { named, rest } = busiestInstitutions(s.dailyLimit, (row) => row.held);
        const other = rest.reduce(
          (sum, row) => ({ ...sum, held: sum.held + row.held, syncing: sum.syncing + row.syncing }),
          { institutionId: OTHER_INSTITUTIONS, held: 0, syncing: 0 },
        );
        for (const row of rest.length > 0 ? [...named, other] : named) {
          g.set({ institution: row.institutionId, state: 'held' }, row.held);
          g.set({ institution: row.institutionId, state: 'syncing' }, row.syncing);
        }
      },
    );
    defineConsentGauges(gauge);
    defineInstitutionHealthGauges(gauge);
    gauge(
      'bff_event_deliveries_pending',
      'Deliveries of merchant events not finished, by state: due (an attempt should be under way) or waiting_retry (after a failure). Disabled merchants’ are left out.',
      ['state'],
      (g, s) => {
        g.set({ state: 'due' }, s.deliveries.due);
        g.set({ state: 'waiting_retry' }, s.deliveries.waiting);
      },
    );
    gauge(
      'bff_event_delivery_oldest_due_seconds',
      'How long the longest-due delivery attempt has been due (0: none is due): delivery lag behind schedule.',
      [],
      (g, s) => g.set(s.deliveries.oldestDueSeconds),
    );
    gauge(
      'bff_event_endpoints',
      'Merchant webhook endpoints by state: healthy, failing (no success since a failed attempt), disabled.',
      ['state'],
      (g, s) => {
        g.set({ state: 'healthy' }, s.endpoints.healthy);
        g.set({ state: 'failing' }, s.endpoints.failing);
        g.set({ state: 'disabled' }, s.endpoints.disabled);
      },
    );
    gauge(
      'bff_event_endpoint_longest_failing_seconds',
      'How long the longest-failing enabled endpoint has failed (0: none); 72 hours of it disable the endpoint.',
      [],
      (g, s) => g.set(s.endpoints.longestFailingSeconds),
    );
    gauge(
      'bff_inbox_events',
      'Upstream webhooks in the inbox not processed: received (fan-out pending) or failed (waiting for a person).',
      ['status'],
      (g, s) => {
        g.set({ status: 'received' }, s.inbox.received);
        g.set({ status: 'failed' }, s.inbox.failed);
      },
    );
    gauge(
      'bff_inbox_oldest_received_seconds',
      'How long the oldest received, not yet fanned-out upstream webhook has waited (0: none).',
      [],
      (g, s) => g.set(s.inbox.oldestReceivedSeconds),
    );
    gauge(
      'bff_payments',
      'Payments not final, by status (AWAITING_AUTHORIZATION, SUBMITTING, PENDING, OTHER: another status of the bank’s) and kind (SINGLE, VRP); parked ones included.',
      ['status', 'kind'],
      (g, s) => {
        for (const status of UNFINISHED_PAYMENT_STATUSES)
          for (const kind of PAYMENT_KINDS) g.set({ status, kind }, 0);
        for (const row of s.payments.unfinished) g.set({ status: row.status, kind: row.kind }, row.payments);
      },
    );
    gauge(
      'bff_payments_parked',
      'Payments parked for a person: not final and no status check scheduled (GET /admin/payments/parked lists them).',
      [],
      (g, s) => g.set(s.payments.parked),
    );
    gauge(
      'bff_payments_parked_oldest_seconds',
      'Age (since its creation) of the oldest parked payment (0: none).',
      [],
      (g, s) => g.set(s.payments.oldestParkedSeconds),
    );
    gauge(
      'bff_payments_submitting',
      'Payments SUBMITTING that the status poll still sends (not parked), of merchants not disabled.',
      [],
      (g, s) => g.set(s.payments.submitting),
    );
    gauge(
      'bff_payments_submitting_oldest_seconds',
      'How long the longest-submitting of those has been SUBMITTING (0: none): the bank has not acknowledged it.',
      [],
      (g, s) => g.set(s.payments.oldestSubmittingSeconds),
    );
  }

  /**
   * Seconds since the figures shown were read from Postgres, by this worker or by the one that read them for
   * all (see bff_metrics_snapshot_age_seconds), after the read a scrape may have started.
   */
  async ageSeconds(): Promise<number | undefined> {
    const shown = await this.snapshot.get();
    return shown === undefined ? undefined : Math.max(0, (Date.now() - shown.at) / 1000);
  }

  private async load(): Promise<DatabaseSnapshot> {
    const snapshot = await withDeadline(this.figures.read(), 'database metrics');
    if (this.failing) this.logger.info('database metrics read again');
    this.failing = false;
    return snapshot;
  }

  private failed(error: unknown): void {
    if (!this.failing) {
      this.logger.warn({ err: error }, 'database metrics cannot be read: the gauges keep their last values');
    }
    this.failing = true;
  }
}
