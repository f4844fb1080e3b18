import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { declarePublicRoutes, DomainError, ErrorCode, sendError } from '#libs/http';
import { type AppLogger, LOGGER } from '#libs/observability';
import { ALL_QUEUES } from '#libs/queue';
import { assertSameOrigin, consoleCookie } from '../common/auth/console-cookie.js';
import { ConsoleSessionService } from '../common/auth/console-session.service.js';

export const QUEUE_BOARD_PATH = '/admin/queues';

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The one user name HTTP Basic accepts, so a login form filled in by habit fails plainly. */
export const QUEUE_BOARD_USER = 'operator';

/**
 * The operator's token, as a bearer token (curl, scripts) or as the password of HTTP Basic with the user
 * name `operator`: a browser asks for it once and sends it with every request the board's page makes.
 */
function operatorToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(' ', 2);
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() !== 'basic' || !value) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1 || decoded.slice(0, colon) !== QUEUE_BOARD_USER) return undefined;
  return decoded.slice(colon + 1);
}

/** Who may open the board besides the bearer of the token: an operator's console session. */
export interface QueueBoardAccess {
  adminToken: string;
  /** The api's public URL: a console session's changes must come from its origin (CSRF). */
  publicUrl: string;
  consoleSessions: Pick<ConsoleSessionService, 'resolve'>;
}

/**
 * Bull Board at /admin/queues, showing every queue, behind the operator token. It is a Fastify plugin
 * of its own (not a Nest route), so it gets its own guard: the same token, checked in constant time, or
 * the operator's console session (its cookie, when no Authorization header is sent), so the console's
 * link opens the board without asking for the token again.
 */
/** The board page's stylesheet link to Google Fonts (its only request off the api). */
const WEB_FONTS = /<link[^>]+href="https:\/\/fonts\.googleapis\.com\/[^"]*"[^>]*>/g;

export function registerQueueBoard(
  fastify: FastifyInstance,
  queues: readonly Queue[],
  access: QueueBoardAccess,
  logger: AppLogger,
): void {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter });
  void fastify.register(
    async (scope) => {
      // To the api's access hook, which knows no basic auth, the board's routes are public: this scope's
      // own hook below has refused whoever is not the operator before it runs.
      declarePublicRoutes(scope);
      scope.addHook('onRequest', async (request, reply) => {
        const token = operatorToken(request.headers.authorization);
        if (token !== undefined && sameSecret(token, access.adminToken)) return;
        const cookie = request.headers.authorization ? undefined : consoleCookie(request.headers);
        const caller = cookie ? await access.consoleSessions.resolve(cookie).catch(() => null) : null;
        if (caller?.kind === 'operator') {
          try {
            assertSameOrigin(request.method, request.headers, access.publicUrl);
            return;
          } catch (error) {
            sendError(logger, error, request, reply);
            return reply;
          }
        }
        void reply.header(
          'www-authenticate',
          `Basic realm="queues: user ${QUEUE_BOARD_USER}, password the operator token", charset="UTF-8"`,
        );
        sendError(
          logger,
          new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credentials.'),
          request,
          reply,
        );
        return reply;
      });
      // The board's page asks Google for its web fonts: an operator's network may reach nothing but us
      // (and should not tell a third party when someone looks at the queues). Its own fallbacks serve.
      scope.addHook('onSend', async (_request, reply, payload) =>
        typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html')
          ? payload.replace(WEB_FONTS, '')
          : payload,
      );
      await scope.register(serverAdapter.registerPlugin());
    },
    { prefix: QUEUE_BOARD_PATH },
  );
}

/** Puts the board on the api's Fastify instance as the app starts, with every queue of the system. */
@Injectable()
export class QueueBoard implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consoleSessions: ConsoleSessionService,
  ) {}

  onModuleInit(): void {
    registerQueueBoard(
      this.adapterHost.httpAdapter.getInstance<FastifyInstance>(),
      ALL_QUEUES.map((name) => this.moduleRef.get<Queue>(getQueueToken(name), { strict: false })),
      {
        adminToken: this.config.api.adminToken,
        publicUrl: this.config.api.publicUrl,
        consoleSessions: this.consoleSessions,
      },
      this.logger,
    );
  }
}
