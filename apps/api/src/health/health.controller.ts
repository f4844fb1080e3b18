import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { Public } from '#libs/http';
import { DependencyHealthIndicators } from './dependency-health.indicators.js';
import { UpstreamHealthIndicator } from './upstream-health.indicator.js';

@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly dependencies: DependencyHealthIndicators,
    private readonly upstream: UpstreamHealthIndicator,
  ) {}

  /** The process is up and its event loop answers; no dependency is consulted. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Postgres, Redis and the upstream all answer; 503 in the error envelope, naming the failing ones, if not. */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.dependencies.postgres(),
      () => this.dependencies.redisPing(),
      () => this.upstream.check(),
    ]);
  }
}
