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

/** apps/api/console of the source tree, whether this runs from dist/ or from the sources. */
function consoleDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const distAt = here.lastIndexOf(`${sep}dist${sep}`);
  const root = distAt >= 0 ? here.slice(0, distAt) : resolve(here, '../../../..');
  return join(root, 'apps', 'api', 'console');
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
    await scope.register(fastifyStatic, {
      root: consoleDir(),
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
