import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { HealthCheck, type HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ApiErrorResponse, ProbeRoutes, Public } from '#libs/http';
import { DependencyHealthIndicators } from './dependency-health.indicators.js';
import { HealthResultOutput } from './outputs/health-result.output.js';
import { ReceiverHealthIndicator } from './receiver-health.indicator.js';
import { UpstreamHealthIndicator } from './upstream-health.indicator.js';

// Terminus's own Swagger documentation is switched off: it writes a Swagger 2 `schema` beside `content`.
const NOT_READY = {
  type: ApiErrorResponse,
  description: 'UPSTREAM_UNAVAILABLE, with details naming each failing dependency',
};

/**
 * The documented answer: Terminus also sends `info` and `error`, which only repeat `details` split by
 * outcome (and a failing check never answers this shape: it is a 503 in the error envelope).
 */
function healthOutput(result: HealthCheckResult): HealthResultOutput {
  return { status: 'ok', details: result.details as HealthResultOutput['details'] };
}

@Public()
@ProbeRoutes()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly dependencies: DependencyHealthIndicators,
    private readonly upstream: UpstreamHealthIndicator,
    private readonly receiver: ReceiverHealthIndicator,
  ) {}

  /** What a probe or a person asking `/health` means: whether the api can serve. Readiness, below. */
  @Get()
  @ApiOperation({ summary: 'Whether the api can serve: the same answer as GET /health/ready' })
  @ApiOkResponse({ type: HealthResultOutput })
  @ApiServiceUnavailableResponse(NOT_READY)
  @HealthCheck({ swaggerDocumentation: false })
  overall(): Promise<HealthResultOutput> {
    return this.ready();
  }

  /**
   * The process is up and its event loop answers; no dependency is consulted, so there is nothing for
   * Terminus to run (its check of no indicators answers exactly this).
   */
  @Get('live')
  @ApiOkResponse({ type: HealthResultOutput })
  live(): HealthResultOutput {
    return { status: 'ok', details: {} };
  }

  /**
   * Postgres, Redis and the upstream all answer; 503 in the error envelope, naming the failing ones, if
   * not. `upstreamWebhooks` is always up, and says `receiver: missing` (with the applications) when the
   * upstream has nowhere to send its webhooks about consents we hold.
   */
  @Get('ready')
  @ApiOkResponse({ type: HealthResultOutput })
  @ApiServiceUnavailableResponse(NOT_READY)
  @HealthCheck({ swaggerDocumentation: false })
  async ready(): Promise<HealthResultOutput> {
    return healthOutput(
      await this.health.check([
        () => this.dependencies.postgres(),
        () => this.dependencies.redisPing(),
        () => this.upstream.check(),
        () => this.receiver.check(),
      ]),
    );
  }
}
