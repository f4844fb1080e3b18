import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { SyncTarget } from '#libs/domain/accounts';
import { ConsentFirstSyncRepository } from '#libs/domain/consents';
import { MerchantEventRepository, type NewMerchantEvent } from '#libs/domain/events';
import { connectionSyncedEvent } from './sync-events.js';
import type { TenantRun } from './sync-run-ending.service.js';

/**
 * The merchant events a sync run's end records, in its transaction: the run's own, and consent.synced
 * when the run's end made the whole connection ready (a success and a failure alike end a first sync).
 */
@Injectable()
export class SyncEndEventsService {
  constructor(
    private readonly events: MerchantEventRepository,
    private readonly firstSyncs: ConsentFirstSyncRepository,
  ) {}

  async record(db: pg.PoolClient, run: TenantRun, target: SyncTarget, events: NewMerchantEvent[]) {
    await this.events.record(db, [...events, ...(await this.connectionReady(db, run, target))]);
  }

  /**
   * consent.synced, when this run was the last of the consent's first syncs to end (with the run's end in
   * the same transaction, so the check sees it): the whole connection is ready. Only first syncs ask.
   */
  private async connectionReady(
    db: pg.PoolClient,
    run: TenantRun,
    target: SyncTarget,
  ): Promise<NewMerchantEvent[]> {
    if (run.trigger !== 'INITIAL') return [];
    const ready = await this.firstSyncs.markFirstSynced(run.merchantId, db, target.consent.id);
    if (!ready) return [];
    return [connectionSyncedEvent(target, ready)];
  }
}
