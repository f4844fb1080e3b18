import { Body, Controller, Delete, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ApiAnswer, ApiErrorResponse, envelope, invalidRequest, Public } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { assertNotCrossSite, consoleCookie, consoleSetCookie } from '../common/auth/console-cookie.js';
import { CONSOLE_SESSION_SECONDS, ConsoleSessionService } from '../common/auth/console-session.service.js';
import { ConsoleSignInInput } from './inputs/console-sign-in.input.js';
import { ConsoleSessionOutput } from './outputs/console-session.output.js';

/**
 * The web console's sign-in (docs/console.md): the only route of the console's own. Public, because the
 * credential comes in the body; what it sets is a cookie every other route accepts in its place.
 */
@ApiTags('console')
@Public()
@Controller('console/session')
export class ConsoleSessionController {
  constructor(
    private readonly sessions: ConsoleSessionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in to the web console',
    description:
      "Exchanges an API key (`apiKey`) or the operator token (`operatorToken`), exactly one, for a console session: an HttpOnly, SameSite=Strict cookie `bff_console` (Secure under https) that lasts 8 hours, or until the key expires, is revoked or its merchant disabled, or the operator token changes. Routes accept the cookie where they accept the credential it was made from, when the request has no Authorization header; a cookie request that changes something must come from the api's own origin (403 otherwise). The answer never contains the credential. 401 for a wrong credential, 403 from another site's page.",
  })
  @ApiAnswer(200, ConsoleSessionOutput)
  @ApiInvalid('VALIDATION_FAILED: not exactly one credential')
  @ApiUnauthorizedResponse({ type: ApiErrorResponse, description: 'UNAUTHORIZED: a wrong credential' })
  @ApiForbiddenResponse({ type: ApiErrorResponse, description: "FORBIDDEN: from another site's page" })
  async signIn(
    @Body() body: ConsoleSignInInput,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if ((body.apiKey === undefined) === (body.operatorToken === undefined)) {
      throw invalidRequest([{ field: 'apiKey', issue: 'give exactly one of apiKey and operatorToken' }]);
    }
    assertNotCrossSite(request.headers, this.config.api.publicUrl);
    const session = await this.sessions.signIn(body);
    const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
    void reply.header('set-cookie', consoleSetCookie(session.token, maxAge, this.config.api.publicUrl));
    void reply.header('cache-control', 'no-store');
    return envelope({
      kind: session.caller.kind,
      ...(session.caller.kind === 'merchant' ? { merchantId: session.caller.merchantId } : {}),
      expiresAt: session.expiresAt.toISOString(),
    });
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Sign out of the web console',
    description: `Ends the session the console's cookie names, on the server (every copy of the cookie stops working on every api process, and the session's event streams end), and clears the cookie. Harmless without one. A session lasts at most ${CONSOLE_SESSION_SECONDS / 3600} hours anyway.`,
  })
  @ApiNoContentResponse({ description: 'Signed out' })
  async signOut(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.sessions.signOut(consoleCookie(request.headers));
    void reply.header('set-cookie', consoleSetCookie('', 0, this.config.api.publicUrl));
  }
}
