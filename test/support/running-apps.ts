import { type AddressInfo, createServer } from 'node:net';
import type { AppConfig } from '#libs/config';
import type { NestFastifyApplication } from '#libs/http';
import type { AppLogger } from '#libs/observability';
import { testConfig } from '#libs/testing';
import { createApiApp } from '../../apps/api/src/bootstrap.js';
import { createSandboxApp } from '../../apps/sandbox/src/bootstrap.js';
import { createWorkerApp, type WorkerApp } from '../../apps/worker/src/bootstrap.js';
import { checkResponseSchemas } from './response-check.js';

export interface RunningHttpApp {
  app: NestFastifyApplication;
  url: string;
  close: () => Promise<void>;
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function listen(app: NestFastifyApplication, port = 0): Promise<RunningHttpApp> {
  await app.listen({ host: '127.0.0.1', port });
  const { port: bound } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${bound}`, close: () => app.close() };
}

/** The sandbox over real HTTP, on `port` (a random one when 0). */
export async function startSandbox(
  config: AppConfig = testConfig(),
  logger?: AppLogger,
  port = 0,
): Promise<RunningHttpApp> {
  return listen((await createSandboxApp(config, logger)).app, port);
}

export interface ApiStartOptions {
  /**
   * Off: bodies written by JSON.stringify, for comparison with the schema-written ones. On (the default),
   * every schema-written body is checked against JSON.stringify's (`checkResponseSchemas`).
   */
  responseSchemas?: boolean;
  /** Where to listen (a random port when 0 or unset). */
  port?: number;
}

/** The api on a random port, pointed at `upstreamUrl` (normally a sandbox the test started). */
export async function startApi(
  upstreamUrl: string,
  overrides: Record<string, string> = {},
  logger?: AppLogger,
  { port, ...options }: ApiStartOptions = {},
): Promise<RunningHttpApp & { config: AppConfig }> {
  const config = testConfig({ UPSTREAM_BASE_URL: upstreamUrl, ...overrides });
  const { app } = await createApiApp(config, logger, options);
  if (options.responseSchemas !== false) checkResponseSchemas(app.getHttpAdapter().getInstance());
  const running = await listen(app, port);
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
