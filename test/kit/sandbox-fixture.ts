import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { AppConfig } from '#libs/config';
import { testConfig } from '#libs/testing';
import { type RunningHttpApp, startSandbox } from './running-apps.js';
import { SandboxHttp } from './sandbox-http.js';

export interface SandboxFixture {
  /** The running sandbox; its fields throw outside hooks and tests, where it has not started. */
  sandbox: Pick<RunningHttpApp, 'app' | 'url'>;
  http: SandboxHttp;
  config: AppConfig;
}

/**
 * One sandbox per test file over real HTTP, reset to its seeded state before every test. Call it inside
 * `describe`; hooks the file registers afterwards run after these before-hooks and before these
 * after-hooks (vitest's default stack order), so a file can subscribe to the started app.
 */
export function useSandbox(config: AppConfig = testConfig()): SandboxFixture {
  let running: RunningHttpApp | undefined;
  const started = (): RunningHttpApp => {
    if (!running) throw new Error('the sandbox starts in beforeAll: use it inside hooks and tests');
    return running;
  };
  const sandbox = {
    get app() {
      return started().app;
    },
    get url() {
      return started().url;
    },
  };
  const http = new SandboxHttp(() => sandbox.url, config);
  beforeAll(async () => {
    running = await startSandbox(config);
  });
  afterAll(async () => {
    await running?.close();
  });
  beforeEach(async () => {
    expect((await http.admin('POST', '/reset')).status).toBe(200);
  });
  return { sandbox, http, config };
}
