import { Module } from '@nestjs/common';
import { InstitutionHealthRepository } from './institution-health.repository.js';
import { InstitutionHealthService } from './institution-health.service.js';
import { UpstreamCallRecorder } from './upstream-call.recorder.js';
import { UpstreamCallRepository } from './upstream-call.repository.js';
import { UpstreamCallsService } from './upstream-calls.service.js';

/**
 * The upstream call log: its recorder runs in every process that imports this module (api and worker);
 * institution health is read from it.
 */
@Module({
  providers: [
    UpstreamCallRepository,
    UpstreamCallRecorder,
    UpstreamCallsService,
    InstitutionHealthRepository,
    InstitutionHealthService,
  ],
  exports: [UpstreamCallsService, InstitutionHealthRepository, InstitutionHealthService],
})
export class UpstreamCallsModule {}
