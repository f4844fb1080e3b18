import { Module } from '@nestjs/common';
import { InstitutionsModule } from '#libs/domain/institutions';
import { InstitutionsController } from './institutions.controller.js';

/** The institutions a user can connect (API.md "Institutions"). */
@Module({
  imports: [InstitutionsModule],
  controllers: [InstitutionsController],
})
export class InstitutionsApiModule {}
