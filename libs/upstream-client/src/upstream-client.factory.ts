import type { Registry } from 'prom-client';
import type { AppConfig } from '#libs/config';
import type { AppLogger } from '#libs/observability';
import { UpstreamClient, type UpstreamClientOptions } from './upstream.client.js';

/** Injection token for the process's one {@link UpstreamClient} (provided by CoreModule). */
export const UPSTREAM_CLIENT = Symbol('UPSTREAM_CLIENT');

export interface UpstreamClientDeps {
  logger?: AppLogger;
  registry?: Registry;
  /** Retry, breaker and pool settings beyond what configuration holds. */
  overrides?: Partial<Omit<UpstreamClientOptions, 'logger' | 'registry'>>;
}

/** The client for `config.upstream`, without Nest: apps, workers, scripts and the bench share it. */
export function createUpstreamClient(config: AppConfig, deps: UpstreamClientDeps = {}): UpstreamClient {
  const { baseUrl, applicationId, applicationSecret, apiVersion, timeoutMs } = config.upstream;
  return new UpstreamClient({
    baseUrl,
    applicationId,
    applicationSecret,
    apiVersion,
    timeoutMs,
    ...deps.overrides,
    logger: deps.logger?.child({ component: 'upstream-client' }),
    registry: deps.registry,
  });
}
