import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER, Metrics } from '#libs/observability';
import { DatabaseMetricsCollector } from './database-metrics.collector.js';
import { QueueMetricsCollector } from './queue-metrics.collector.js';

/**
 * The worker's `GET /metrics` on WORKER_METRICS_HOST:WORKER_METRICS_PORT: the worker is a headless Nest
 * context with no HTTP server of its own, and its metrics (process, upstream calls, deliveries, the queue
 * and database gauges) would otherwise be unreachable. Plain node:http: one route, nothing to route,
 * authenticate or parse, and nothing of the api's stack. Like the api's, it is public: keep the port
 * private. A port already taken is a warning, not a failed boot: the worker's work matters more.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly metrics: Metrics,
    queues: QueueMetricsCollector,
    database: DatabaseMetricsCollector,
  ) {
    const sources = { queues, database };
    new Gauge({
      name: 'bff_metrics_snapshot_age_seconds',
      help: 'Age of the gauges shown from each source: queues (read from Redis by this worker) and database (read from Postgres by whichever worker read them for all, shared through Redis). Growing past a minute (twice the 30 s refresh): the reads fail and those gauges show their last values.',
      labelNames: ['source'],
      registers: [metrics.registry],
      async collect() {
        for (const [source, collector] of Object.entries(sources)) {
          const age = await collector.ageSeconds();
          if (age !== undefined) this.set({ source }, age);
        }
      },
    });
  }

  /** Where it listens, once it does (tests scrape it there). */
  get url(): string | undefined {
    const address = this.server?.address() as AddressInfo | null | undefined;
    return address ? `http://${this.config.metrics.workerHost}:${address.port}` : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { workerHost: host, workerPort: port } = this.config.metrics;
    if (port === 0) return;
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
        return;
      }
      this.metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(text),
        (error: unknown) => {
          this.logger.error({ err: error }, 'metrics scrape failed');
          response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
        },
      );
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', (error) => {
        this.logger.warn({ err: error, host, port }, 'worker metrics not served: cannot listen');
        resolve(false);
      });
      server.listen(port, host, () => resolve(true));
    });
    if (!listening) return;
    this.server = server;
    this.logger.info({ url: `${this.url}/metrics` }, 'worker metrics served');
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // A scraper's kept-alive connection would hold close() open until it times out.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
