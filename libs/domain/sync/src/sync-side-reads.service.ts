import { Inject, Injectable } from '@nestjs/common';
import {
  AccountPlacementRepository,
  AccountSyncStateRepository,
  type SyncTarget,
} from '#libs/domain/accounts';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type AccountBalance,
  type ConsentCallOptions,
  UPSTREAM_CLIENT,
  type UpstreamClient,
} from '#libs/upstream-client';
import { sideCall } from './sync-failures.js';
import type { TenantRun } from './sync-run-ending.service.js';

/** A run's side reads, sent: each awaited once the window's pages have landed. */
export interface SideReads {
  /** False when the bank no longer lists this run's own account under the consent. */
  accountListed(): Promise<boolean>;
  balances(): Promise<readonly AccountBalance[]>;
}

/**
 * What a sync run reads from the bank beside its window's pages: the consent's account list (applied to
 * the consent's accounts) and the run's account's balances. Sent at the start, so they add no wait.
 */
@Injectable()
export class SyncSideReadsService {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly placement: AccountPlacementRepository,
    private readonly syncState: AccountSyncStateRepository,
  ) {}

  start(run: TenantRun, target: SyncTarget, options: ConsentCallOptions): SideReads {
    const listAccounts = () => this.refreshAccounts(run, target, options);
    const readBalances = () => this.upstream.data.getAccountBalances(target.upstreamAccountId, options);
    const listing = listAccounts();
    listing.catch(() => undefined);
    const balances = readBalances();
    balances.catch(() => undefined);
    return {
      accountListed: () => sideCall(listing, listAccounts),
      balances: async () => (await sideCall(balances, readBalances)).data.balances ?? [],
    };
  }

  /**
   * The consent's accounts as the upstream lists them now: new ones are added (due at once, for the next
   * dispatch), unlisted ones closed, relisted ones reopened. False when this run's own account is closed.
   * Sent alongside the window's first pages, so it adds no wait to a sync.
   */
  private async refreshAccounts(
    run: TenantRun,
    target: SyncTarget,
    options: ConsentCallOptions,
  ): Promise<boolean> {
    const { data: listed } = await this.upstream.data.getAccounts(options);
    const ids = listed.map((a) => a.id);
    await this.syncState.reopenListed(run.merchantId, target.consent.id, ids);
    // Only accounts new to us are stored here (their balances come with their first sync).
    const known = new Set(await this.syncState.upstreamIdsOfConsent(run.merchantId, target.consent.id));
    const added = listed.filter((a) => !known.has(a.id));
    if (added.length > 0) {
      await this.placement.upsertFromUpstream(
        run.merchantId,
        {
          userId: target.userId,
          consentId: target.consent.id,
          institutionId: target.consent.institutionId,
        },
        added,
      );
    }
    const closed = await this.syncState.closeUnlisted(run.merchantId, target.consent.id, ids);
    if (closed.length > 0)
      this.logger.info({ consentId: target.consent.id, closed }, 'sync: accounts closed');
    return ids.includes(target.upstreamAccountId);
  }
}
