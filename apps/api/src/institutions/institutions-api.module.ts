import { Module } from '@nestjs/common';
import { InstitutionsModule } from '#libs/domain/institutions';
import { InstitutionsController } from './institutions.controller.js';

/** The institutions a user can connect (docs/api-guide.md, "Users and institutions"). */
@Module({
  imports: [InstitutionsModule],
  controllers: [InstitutionsController],
})
export class InstitutionsApiModule {}
