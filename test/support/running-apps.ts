import type { AddressInfo } from 'node:net';
import type { AppConfig } from '#libs/config';
import type { NestFastifyApplication } from '#libs/http';
import type { AppLogger } from '#libs/observability';
import { createApiApp } from '../../apps/api/src/bootstrap.js';
import { createSandboxApp } from '../../apps/sandbox/src/bootstrap.js';
import { createWorkerApp, type WorkerApp } from '../../apps/worker/src/bootstrap.js';
import { testConfig } from '#libs/testing';

export interface RunningHttpApp {
  app: NestFastifyApplication;
  url: string;
  close: () => Promise<void>;
}

async function listen(app: NestFastifyApplication): Promise<RunningHttpApp> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** The sandbox on a random port, over real HTTP. */
export async function startSandbox(
  config: AppConfig = testConfig(),
  logger?: AppLogger,
): Promise<RunningHttpApp> {
  return listen((await createSandboxApp(config, logger)).app);
}

/** The api on a random port, pointed at `upstreamUrl` (normally a sandbox the test started). */
export async function startApi(
  upstreamUrl: string,
  overrides: Record<string, string> = {},
  logger?: AppLogger,
  options: Parameters<typeof createApiApp>[2] = {},
): Promise<RunningHttpApp & { config: AppConfig }> {
  const config = testConfig({ UPSTREAM_BASE_URL: upstreamUrl, ...overrides });
  const running = await listen((await createApiApp(config, logger, options)).app);
  return { ...running, config };
}

export async function startWorker(
  overrides: Record<string, string> = {},
  logger?: AppLogger,
): Promise<WorkerApp & { config: AppConfig }> {
  const config = testConfig(overrides);
  const worker = await createWorkerApp(config, logger);
  await worker.app.init();
  return { ...worker, config };
}
