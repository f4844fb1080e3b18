import { Module } from '@nestjs/common';
import { UsersModule } from '#libs/domain/users';
import { UsersController } from './users.controller.js';

/** Users and their session tokens (docs/api-guide.md, "Users and institutions"). */
@Module({
  imports: [UsersModule],
  controllers: [UsersController],
})
export class UsersApiModule {}
