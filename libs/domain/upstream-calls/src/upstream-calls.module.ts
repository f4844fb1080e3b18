import { Module } from '@nestjs/common';
import { UpstreamCallRecorder } from './upstream-call.recorder.js';
import { UpstreamCallRepository } from './upstream-call.repository.js';
import { UpstreamCallsService } from './upstream-calls.service.js';

/** The upstream call log: its recorder runs in every process that imports this module (api and worker). */
@Module({
  providers: [UpstreamCallRepository, UpstreamCallRecorder, UpstreamCallsService],
  exports: [UpstreamCallsService, UpstreamCallRecorder],
})
export class UpstreamCallsModule {}
