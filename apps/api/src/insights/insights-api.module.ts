import { Module } from '@nestjs/common';
import { ConsentsModule } from '#libs/domain/consents';
import { UpstreamCallsModule } from '#libs/domain/upstream-calls';
import { ConnectFunnelController } from './connect-funnel.controller.js';
import { ConversionController } from './conversion.controller.js';
import { InstitutionHealthController } from './institution-health.controller.js';

/** What merchants and the operator learn from their connections and calls (docs/insights.md). */
@Module({
  imports: [ConsentsModule, UpstreamCallsModule],
  controllers: [ConversionController, ConnectFunnelController, InstitutionHealthController],
})
export class InsightsApiModule {}
