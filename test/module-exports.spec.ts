import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DynamicModule, INestApplicationContext, InjectionToken, Type } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { Module } from '@nestjs/core/injector/module.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConsentsModule, ConsentStateRepository } from '#libs/domain/consents';
import { createLogger, Metrics } from '#libs/observability';
import { AppModule } from '../apps/api/src/app.module.js';
import { SandboxModule } from '../apps/sandbox/src/sandbox.module.js';
import { WorkerModule } from '../apps/worker/src/worker.module.js';
import { testConfig } from './kit/index.js';

/**
 * A module exports what another module injects, and nothing else (issue 83): an export nobody outside
 * takes is a seam in the wrong place, and lets the next caller reach past the module's front door.
 *
 * Each app's graph is built by Nest itself, in preview mode (every dependency resolved, no provider made,
 * nothing connected), so "who injects what" is Nest's own answer, constructor, property and enhancer
 * (guard, interceptor) dependencies alike, not a reading of decorators here.
 */
const APPS: Record<string, (options: Parameters<typeof AppModule.forRoot>[0]) => DynamicModule> = {
  api: (options) => AppModule.forRoot(options),
  worker: (options) => WorkerModule.forRoot(options),
  sandbox: (options) => SandboxModule.forRoot(options),
};

/** Every module class declared in a `*.module.ts` of apps/ and libs/: ours, not Nest's or a library's. */
async function ourModules(): Promise<Set<unknown>> {
  const files = ['apps', 'libs'].flatMap((root) =>
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.module.ts'))
      .map((file) => resolve(root, file)),
  );
  const loaded = await Promise.all(files.map((file) => import(file) as Promise<Record<string, unknown>>));
  return new Set(loaded.flatMap((exports) => Object.values(exports)));
}

/** Module class -> the provider tokens it exports (modules it re-exports apart). */
type Exports = Map<Type<unknown>, Set<InjectionToken>>;

async function graphOf(app: keyof typeof APPS): Promise<{ exported: Exports; injected: Exports }> {
  const context: INestApplicationContext = await NestFactory.createApplicationContext(
    APPS[app]({
      config: testConfig(),
      logger: createLogger({ level: 'silent', app }),
      metrics: new Metrics(`module-exports-${app}`),
    }),
    { preview: true, logger: false, abortOnError: false },
  );
  const modules = [...context.get(ModulesContainer, { strict: false }).values()];
  const exported: Exports = new Map();
  const injected: Exports = new Map();
  const add = (map: Exports, module: Module, token: InjectionToken) => {
    const tokens = map.get(module.metatype) ?? new Set();
    map.set(module.metatype, tokens.add(token));
  };
  for (const module of modules) {
    for (const token of module.exports) if (module.providers.has(token)) add(exported, module, token);
    const users: InstanceWrapper[] = [
      ...module.providers.values(),
      ...module.controllers.values(),
      ...module.injectables.values(),
    ];
    for (const user of users) {
      const dependencies = [
        ...(user.getCtorMetadata() ?? []),
        ...(user.getPropertiesMetadata() ?? []).map(({ wrapper }) => wrapper),
      ];
      for (const dependency of dependencies) {
        if (dependency.host && dependency.host !== module) add(injected, dependency.host, dependency.token);
      }
    }
  }
  await context.close();
  return { exported, injected };
}

describe('module exports', () => {
  const exported: Exports = new Map();
  const injected: Exports = new Map();

  beforeAll(async () => {
    for (const app of Object.keys(APPS)) {
      const graph = await graphOf(app);
      for (const [into, from] of [
        [exported, graph.exported],
        [injected, graph.injected],
      ] as const) {
        for (const [module, tokens] of from) {
          into.set(module, new Set([...(into.get(module) ?? []), ...tokens]));
        }
      }
    }
  }, 60_000);

  it('sees the injections across modules it judges by', () => {
    // A graph read wrong (no dependencies recorded) would find every export unused, or, were the check
    // turned around, none: one known crossing pins it.
    expect(exported.get(ConsentsModule)?.has(ConsentStateRepository)).toBe(true);
    expect(injected.get(ConsentsModule)?.has(ConsentStateRepository)).toBe(true);
  });

  it('exports only what another module of some app injects', async () => {
    const ours = await ourModules();
    const unused: string[] = [];
    for (const [module, tokens] of exported) {
      if (!ours.has(module)) continue;
      for (const token of tokens) {
        if (!injected.get(module)?.has(token)) unused.push(`${module.name} exports ${nameOf(token)}`);
      }
    }
    // app.get() in a bootstrap or a test finds any provider, exported or not: it is no reason to export.
    expect(unused.sort()).toEqual([]);
  });
});

const nameOf = (token: InjectionToken) => (typeof token === 'function' ? token.name : String(token));
