import type { SyncTarget } from '#libs/domain/accounts';
import type { NewMerchantEvent } from '#libs/domain/events';
import { type ClaimedRun, type SyncProgress, syncRunTrigger, type SyncWindow } from '#libs/domain/sync-runs';

/** The run changed the stored set: anything inserted, changed or removed, by any of its attempts. */
export const changed = (progress: SyncProgress) =>
  progress.inserted + progress.updated + progress.removed > 0;

/** sync.succeeded, sync.failed or transactions.changed for one run: what it read and what it did. */
export function syncEvent(
  target: SyncTarget,
  type: NewMerchantEvent['type'],
  run: ClaimedRun,
  window: SyncWindow,
  progress: SyncProgress,
): NewMerchantEvent {
  return {
    merchantId: target.merchantId,
    userId: target.userId,
    type,
    data: {
      syncId: run.id,
      accountId: target.id,
      consentId: target.consent.id,
      trigger: syncRunTrigger(run),
      window: { from: window.from?.toISOString() ?? null, before: window.before.toISOString() },
      progress,
    },
  };
}

/** consent.synced: every account's first sync under the consent has ended, with each one's outcome. */
export function connectionSyncedEvent(
  target: SyncTarget,
  ready: { institutionId: string; accounts: { inserted: number }[] },
): NewMerchantEvent {
  return {
    merchantId: target.merchantId,
    userId: target.userId,
    type: 'consent.synced',
    data: {
      consentId: target.consent.id,
      institutionId: ready.institutionId,
      accounts: ready.accounts,
      inserted: ready.accounts.reduce((sum, account) => sum + account.inserted, 0),
    },
  };
}
