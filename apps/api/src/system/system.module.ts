import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DependencyHealthIndicators } from './dependency-health.indicators.js';
import { HealthController } from './health.controller.js';
import { UpstreamHealthIndicator } from './upstream-health.indicator.js';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [DependencyHealthIndicators, UpstreamHealthIndicator],
})
export class HealthModule {}
