import { Controller, Get, Header } from '@nestjs/common';
import { ProbeRoutes, Public } from '#libs/http';
import { Metrics } from '#libs/observability';

/** Prometheus scrape endpoint. Public like health: keep the api's port off the internet or filter /metrics at the edge. */
@Public()
@ProbeRoutes()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
