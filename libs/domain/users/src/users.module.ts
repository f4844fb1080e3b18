import { Module } from '@nestjs/common';
import { MerchantsModule } from '#libs/domain/merchants';
import { UserRepository } from './user.repository.js';
import { UsersService } from './users.service.js';

/** Relies on the global database, logger and upstream-client modules of CoreModule. */
@Module({
  imports: [MerchantsModule],
  providers: [UserRepository, UsersService],
  exports: [UserRepository, UsersService],
})
export class UsersModule {}
