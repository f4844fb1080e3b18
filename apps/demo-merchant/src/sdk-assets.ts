import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The packages the merchant SDK imports at run time in a browser: the import graph of its root entry and
 * of `./connect`. Not `standardwebhooks`: it is CommonJS and Node-only (webhook verification belongs on a
 * merchant's backend), and leaves the root entry for a `./webhooks` one.
 */
export const SDK_BROWSER_DEPENDENCIES = ['openapi-fetch', 'eventsource-parser'] as const;

/** The import map a page inlines (`<script type="importmap">`) to load the SDK without a bundler. */
export interface ImportMap {
  imports: Record<string, string>;
}

export interface SdkAssetsOptions {
  /** The built SDK (default: libs/merchant-sdk/dist of this repository; `npm run sdk:build` makes it). */
  sdkDist?: string;
}

const SERVED = /\.(js|mjs|map)$/;

/** The repository's root, from the source tree or from a built dist/ (as demo-server.ts finds public/). */
function repositoryRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const distAt = here.indexOf(`${sep}dist${sep}`);
  return distAt >= 0 ? here.slice(0, distAt) : resolve(here, '../../..');
}

/** A package's folder and its ESM entry (the `import` condition of `exports["."]`, else `module`). */
function esmEntryOf(name: string): { dir: string; entry: string } {
  const require = createRequire(join(repositoryRoot(), 'package.json'));
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    exports?: Record<string, string | Record<string, string>>;
    module?: string;
  };
  const root = manifest.exports?.['.'];
  const entry = typeof root === 'object' ? (root.import ?? root.default) : (root ?? manifest.module);
  if (!entry || !/\.m?js$/.test(entry)) throw new Error(`${name} has no ES module build to serve`);
  return { dir: dirname(manifestPath), entry: entry.replace(/^\.\//, '') };
}

/**
 * Serves the merchant SDK to browsers without a bundler: GET `/sdk/*` answers libs/merchant-sdk/dist
 * (read on each request, so a rebuild shows on reload) and GET `/vendor/<name>/*` the ESM build of each
 * of its browser dependencies, resolved from node_modules. Answers the import map that ties the bare
 * names to those URLs, for the page to inline before its first module script:
 *
 * ```ts
 * const importMap = registerSdkAssets(app);
 * html.replace('<!-- importmap -->', `<script type="importmap">${JSON.stringify(importMap)}</script>`);
 * ```
 *
 * Only `.js`, `.mjs` and `.map` files are served, and never outside those folders.
 */
export function registerSdkAssets(app: FastifyInstance, options: SdkAssetsOptions = {}): ImportMap {
  const sdkDist = resolve(options.sdkDist ?? join(repositoryRoot(), 'libs', 'merchant-sdk', 'dist'));
  const imports: Record<string, string> = {
    '@open-banking-bff/merchant-sdk': '/sdk/index.js',
    '@open-banking-bff/merchant-sdk/connect': '/sdk/connect/index.js',
  };

  serveScripts(app, sdkDist, '/sdk/');
  for (const name of SDK_BROWSER_DEPENDENCIES) {
    const { dir, entry } = esmEntryOf(name);
    imports[name] = `/vendor/${name}/${entry}`;
    serveScripts(app, dir, `/vendor/${name}/`);
  }
  return { imports };
}

/** The scripts (and their maps) under `root` at `prefix`, read on each request; nothing else there. */
function serveScripts(app: FastifyInstance, root: string, prefix: string): void {
  void app.register(fastifyStatic, {
    root,
    prefix,
    decorateReply: false,
    index: false,
    allowedPath: (path) => SERVED.test(path),
    cacheControl: false,
    setHeaders: (reply) => {
      reply.header('cache-control', 'no-cache');
    },
  });
}
