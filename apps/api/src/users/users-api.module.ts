import { Module } from '@nestjs/common';
import { InstitutionsModule } from '#libs/domain/institutions';
import { UsersModule } from '#libs/domain/users';
import { AdminInstitutionsController } from '../admin/admin-institutions.controller.js';
import { InstitutionsController } from '../institutions/institutions.controller.js';
import { UsersController } from './users.controller.js';

/** Users, sessions and institutions routes of the merchant API (API.md "Users", "Institutions"). */
@Module({
  imports: [UsersModule, InstitutionsModule],
  controllers: [UsersController, InstitutionsController, AdminInstitutionsController],
})
export class UsersApiModule {}
