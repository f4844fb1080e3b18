import { Module } from '@nestjs/common';
import { AccountRepository } from './account.repository.js';
import { AccountPlacementRepository } from './account-placement.repository.js';
import { AccountSyncStateRepository } from './account-sync-state.repository.js';
import { AccountSyncStatsRepository } from './account-sync-stats.repository.js';
import { AccountsService } from './accounts.service.js';

const EXPORTED = [
  AccountRepository,
  AccountPlacementRepository,
  AccountSyncStateRepository,
  AccountSyncStatsRepository,
  AccountsService,
];

/** Relies on the global database module of CoreModule. */
@Module({ providers: EXPORTED, exports: EXPORTED })
export class AccountsModule {}
