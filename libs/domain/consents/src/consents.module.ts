import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { ConsentRepository } from './consent.repository.js';
import { ConsentsService } from './consents.service.js';

/** Relies on the global config, database, logger and upstream-client modules of CoreModule. */
@Module({
  imports: [AccountsModule],
  providers: [ConsentRepository, ConsentsService],
  exports: [ConsentsService],
})
export class ConsentsModule {}
