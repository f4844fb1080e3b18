import { Module } from '@nestjs/common';
import { UpstreamCallsModule } from '#libs/domain/upstream-calls';
import { UpstreamCallsController } from './upstream-calls.controller.js';

/** The upstream call log (docs/upstream-calls.md); importing it also records the api's own calls. */
@Module({
  imports: [UpstreamCallsModule],
  controllers: [UpstreamCallsController],
})
export class UpstreamCallsApiModule {}
