import { Module } from '@nestjs/common';
import { AccountRepository } from './account.repository.js';
import { AccountBalanceRepository } from './account-balance.repository.js';
import { AccountPlacementRepository } from './account-placement.repository.js';
import { AccountSyncStateRepository } from './account-sync-state.repository.js';
import { AccountSyncStatsRepository } from './account-sync-stats.repository.js';
import { AccountsService } from './accounts.service.js';
import { UnattendedReadsRepository } from './unattended-reads.repository.js';
import { UnattendedReadsService } from './unattended-reads.service.js';

const EXPORTED = [
  AccountRepository,
  AccountBalanceRepository,
  AccountPlacementRepository,
  AccountSyncStateRepository,
  AccountSyncStatsRepository,
  AccountsService,
  UnattendedReadsService,
];

/** Relies on the global database module of CoreModule. */
@Module({ providers: [...EXPORTED, UnattendedReadsRepository], exports: EXPORTED })
export class AccountsModule {}
