import { Module } from '@nestjs/common';
import { AccountRepository } from './account.repository.js';
import { AccountsService } from './accounts.service.js';

/** Relies on the global database module of CoreModule. */
@Module({ providers: [AccountRepository, AccountsService], exports: [AccountRepository, AccountsService] })
export class AccountsModule {}
