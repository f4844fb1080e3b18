import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { InboxModule } from '#libs/domain/inbox';
import { MerchantsModule } from '#libs/domain/merchants';
import { DependencyHealthIndicators } from './dependency-health.indicators.js';
import { HealthController } from './health.controller.js';
import { MeController } from './me.controller.js';
import { MetricsController } from './metrics.controller.js';
import { ReceiverHealthIndicator } from './receiver-health.indicator.js';
import { RootController } from './root.controller.js';
import { SdkBundleController } from './sdk-bundle.controller.js';
import { UpstreamHealthIndicator } from './upstream-health.indicator.js';

/** What is not a merchant resource: the index, health, metrics and who the caller is (the docs: openapi.ts). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), InboxModule, MerchantsModule],
  controllers: [MetricsController, MeController, HealthController, RootController, SdkBundleController],
  providers: [DependencyHealthIndicators, UpstreamHealthIndicator, ReceiverHealthIndicator],
})
export class SystemModule {}
