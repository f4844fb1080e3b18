import { readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { declarePublicRoutes, PUBLIC_ROUTE } from '#libs/http';

export const CONSOLE_PATH = '/console/';

/**
 * Nothing but the console's own files: no inline script or style, no other host, no frame around it, no
 * form posted elsewhere. The page calls only this api (connect-src 'self').
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The source tree's root, whether this runs from dist/ or from the sources. */
function rootDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const distAt = here.lastIndexOf(`${sep}dist${sep}`);
  return distAt >= 0 ? here.slice(0, distAt) : resolve(here, '../../../..');
}

/**
 * The console's way to the SDK bundle of this build: a module re-exporting `/sdk/merchant-sdk@<version>.js`,
 * the version read from the SDK's package.json, so that a new SDK version needs no edit of the console.
 */
function sdkModule(): string {
  const manifest = join(rootDir(), 'libs', 'merchant-sdk', 'package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return `export * from '/sdk/merchant-sdk@${version}.js';\n`;
}

/**
 * Serves the web console (docs/console.md) at /console/: static files, public like the SDK bundle (they
 * hold nothing of anyone's); what the page shows comes from the API, with the console session's cookie.
 */
export function registerConsole(fastify: FastifyInstance): void {
  // The address people type; the page's relative links need the trailing slash.
  fastify.get(CONSOLE_PATH.slice(0, -1), { config: PUBLIC_ROUTE }, (_request, reply) =>
    reply.redirect(CONSOLE_PATH, 301),
  );
  const sdk = sdkModule();
  void fastify.register(async (scope) => {
    declarePublicRoutes(scope);
    scope.addHook('onSend', async (_request, reply) => {
      void reply.headers({
        'content-security-policy': CONSOLE_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
        'cache-control': 'no-cache',
      });
    });
    scope.get(`${CONSOLE_PATH}merchant-sdk.js`, (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').send(sdk),
    );
    await scope.register(fastifyStatic, {
      root: join(rootDir(), 'apps', 'api', 'console'),
      prefix: CONSOLE_PATH,
      redirect: true,
      decorateReply: false,
      cacheControl: false,
      allowedPath: (path) => /^\/?([\w-]+\.(js|css|html))?$/.test(path),
    });
  });
}

@Injectable()
export class ConsoleStatic implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    registerConsole(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }
}
