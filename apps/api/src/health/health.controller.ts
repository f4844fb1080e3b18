import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { ApiErrorResponse, Public } from '#libs/http';
import { DependencyHealthIndicators } from './dependency-health.indicators.js';
import { UpstreamHealthIndicator } from './upstream-health.indicator.js';

// Terminus documents its own 503 body; ours leaves through the error filter as the envelope.
const NOT_READY = {
  type: ApiErrorResponse,
  description: 'UPSTREAM_UNAVAILABLE, with details naming each failing dependency',
};

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
  @ApiServiceUnavailableResponse(NOT_READY)
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Postgres, Redis and the upstream all answer; 503 in the error envelope, naming the failing ones, if not. */
  @Get('ready')
  @ApiServiceUnavailableResponse(NOT_READY)
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.dependencies.postgres(),
      () => this.dependencies.redisPing(),
      () => this.upstream.check(),
    ]);
  }
}
