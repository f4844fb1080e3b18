import { Injectable } from '@nestjs/common';
import { AccountSyncStatsRepository, type DailyLimitCount, type SyncLagCounts } from '#libs/domain/accounts';
import { ConsentConversionRepository, ConsentStatsRepository } from '#libs/domain/consents';
import { EventDeliveryStatsRepository } from '#libs/domain/events';
import { InboxStatsRepository } from '#libs/domain/inbox';
import { PaymentStatsRepository, type UnfinishedPaymentCount } from '#libs/domain/payments';
import { InstitutionHealthRepository } from '#libs/domain/upstream-calls';
import type { ConsentFigures } from './consent-gauges.js';
import { type InstitutionHealthFigures, lastHourHealth } from './institution-health-gauges.js';

/**
 * Sync lag buckets: minutes while an account is fresh, then around the sync interval (4 h, ±10%) and its
 * multiples; 8 h (twice the interval) is the alert's line.
 */
export const SYNC_LAG_BUCKETS = [
  300, 900, 1800, 3600, 7200, 14400, 21600, 28800, 43200, 86400, 172800, 604800,
];
const DAY_MS = 86_400_000;

/**
 * Plain JSON (ages in seconds as of `at`, no Dates): workers share it through Redis, under a key that
 * names its shape (the collector's SNAPSHOT_VERSION, bumped with every change here).
 */
export interface DatabaseSnapshot extends ConsentFigures, InstitutionHealthFigures {
  at: number;
  syncLag: SyncLagCounts;
  dailyLimit: DailyLimitCount[];
  deliveries: { due: number; waiting: number; oldestDueSeconds: number };
  endpoints: { healthy: number; failing: number; disabled: number; longestFailingSeconds: number };
  inbox: { received: number; failed: number; oldestReceivedSeconds: number };
  payments: {
    unfinished: UnfinishedPaymentCount[];
    parked: number;
    oldestParkedSeconds: number;
    submitting: number;
    oldestSubmittingSeconds: number;
  };
}

const secondsSince = (at: Date | null, now: Date) =>
  at === null ? 0 : Math.max(0, (now.getTime() - at.getTime()) / 1000);

/**
 * The figures behind the Postgres gauges, each an aggregate statement in its table's owning repository;
 * DatabaseMetricsCollector decides when they are read and who shows them.
 */
@Injectable()
export class DatabaseSnapshotService {
  constructor(
    private readonly accounts: AccountSyncStatsRepository,
    private readonly consents: ConsentStatsRepository,
    private readonly conversion: ConsentConversionRepository,
    private readonly events: EventDeliveryStatsRepository,
    private readonly inbox: InboxStatsRepository,
    private readonly payments: PaymentStatsRepository,
    private readonly health: InstitutionHealthRepository,
  ) {}

  /** One statement at a time: at most one of the pool's connections, however slow Postgres is. */
  async read(): Promise<DatabaseSnapshot> {
    const now = new Date();
    const syncLag = await this.accounts.syncLag(now, SYNC_LAG_BUCKETS);
    const dailyLimit = await this.accounts.dailyLimitHolds(now);
    const consents = await this.consents.byStatus();
    const expiring = await this.consents.expiringWithinWeek(now);
    const conversion = await this.conversion.startedSince(new Date(now.getTime() - DAY_MS));
    const health = await lastHourHealth(this.health, now);
    const { oldestDueAt, ...deliveries } = await this.events.backlog(now);
    const { failingSince, ...endpoints } = await this.events.endpointHealth();
    const { oldestReceivedAt, ...inbox } = await this.inbox.backlog();
    const { byStatus: unfinished, parked } = await this.payments.unfinished();
    const submitting = await this.payments.submitting();
    return {
      at: now.getTime(),
      syncLag,
      dailyLimit,
      consents,
      expiring,
      conversion,
      health,
      deliveries: { ...deliveries, oldestDueSeconds: secondsSince(oldestDueAt, now) },
      endpoints: { ...endpoints, longestFailingSeconds: secondsSince(failingSince, now) },
      inbox: { ...inbox, oldestReceivedSeconds: secondsSince(oldestReceivedAt, now) },
      payments: {
        unfinished,
        parked: parked.parked,
        oldestParkedSeconds: secondsSince(parked.oldestCreatedAt, now),
        submitting: submitting.submitting,
        oldestSubmittingSeconds: secondsSince(submitting.oldestSince, now),
      },
    };
  }
}
