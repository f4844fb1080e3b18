import { Module } from '@nestjs/common';
import { InstitutionRepository } from './institution.repository.js';
import { InstitutionsService } from './institutions.service.js';

/** Relies on the global database and upstream-client modules of CoreModule (the worker imports it too). */
@Module({
  providers: [InstitutionRepository, InstitutionsService],
  exports: [InstitutionsService],
})
export class InstitutionsModule {}
