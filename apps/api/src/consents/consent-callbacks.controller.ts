import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ConsentCallbackService,
  ConsentRenewalService,
  REAUTHORISATION_LINK_PATH,
} from '#libs/domain/consents';
import { dependencyFailureOf } from '#libs/errors';
import { ApiErrorResponse, DEPENDENCY_RETRY_AFTER_SECONDS, Public } from '#libs/http';
import { PUBLIC_ROUTES } from '#libs/routes';
import { ConsentCallbackInput } from './inputs/consent-callback.input.js';
import { ReauthorisationLinkInput } from './inputs/reauthorisation-link.input.js';

/** The page a user back from the bank sees while we cannot store the answer: it reloads itself. */
const RETRY_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${DEPENDENCY_RETRY_AFTER_SECONDS}">
<title>Finishing your bank connection</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1a1a1a}</style>
</head>
<body>
<h1>Finishing your bank connection</h1>
<p>Your bank has answered, but we could not save the answer just now. This page tries again by itself
in a few seconds; please keep it open.</p>
<p><a href="">Try again now</a></p>
</body>
</html>
`;

@ApiTags('consents')
@Controller(PUBLIC_ROUTES.consentCallback)
export class ConsentCallbacksController {
  constructor(
    private readonly consents: ConsentCallbackService,
    private readonly renewal: ConsentRenewalService,
  ) {}

  // Public: the user's browser, sent by the merchant with the link of consent.reauthorisation_required
  // at a bank that needs the user present; the signed link is what authenticates it.
  @Get(REAUTHORISATION_LINK_PATH)
  @Public()
  @ApiOperation({
    summary: 'Re-authorisation with the user present (the browser, from the merchant)',
    description:
      'The `reauthorisationUrl` of a consent.reauthorisation_required with `userPresenceRequired`: the merchant sends the user’s browser here, never builds it. We ask the bank to renew the consent with the user’s own address and the PSU ids given at creation, then 302 to the bank’s page; the usual callback completes it. A link that is invalid or past the consent’s expiry answers 400.',
  })
  @ApiResponse({ status: 302, description: 'To the bank’s page' })
  @ApiBadRequestResponse({
    type: ApiErrorResponse,
    description: 'VALIDATION_FAILED: the link is invalid or expired',
  })
  async reauthorise(
    @Query() query: ReauthorisationLinkInput,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // The user is here now: the bank is asked with their address, then their browser goes on to it.
    await redirect(reply, await this.renewal.reauthoriseByLink(query.link, request.ip));
  }

  // Public: the user's browser arrives here from the bank with no credentials of ours; the signed,
  // single-use state is what authenticates the request.
  @Get()
  @Public()
  @ApiOperation({
    summary: 'Redirect-flow callback (the browser, from the bank)',
    description:
      "Verifies our signed, single-use state, exchanges the one-time token, stores the consent token encrypted and the accounts, then 302s (the upstream calls made here carry the browser's address as `psu-ip-address`) to the consent's `redirectUrl?consentId=…&status=AUTHORIZED` (or `status=REJECTED&error=…`, `status=FAILED&error=server_error`). A used state (a reload, the back button) exchanges nothing again and 302s to the same page with the consent's status as it is now. An invalid or expired state answers 400 without a redirect: nothing in it can be trusted.",
  })
  @ApiResponse({ status: 302, description: "To the merchant's redirectUrl" })
  @ApiResponse({
    status: 503,
    description:
      'Our database or Redis is briefly unavailable: an HTML page (with Retry-After) that reloads this same URL after a few seconds; nothing was consumed, so the reload completes the callback.',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiBadRequestResponse({
    type: ApiErrorResponse,
    description: 'VALIDATION_FAILED: invalid or expired state',
  })
  async callback(
    @Query() query: ConsentCallbackInput,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    let location: string;
    try {
      // The user is here, in their browser: the bank calls made now carry their address.
      location = await this.consents.completeCallback(
        {
          bffState: query.bffState,
          oneTimeToken: query.oneTimeToken,
          consentId: query.consentId,
          state: query.state,
          error: query.error,
          errorDescription: query.error_description,
        },
        { ipAddress: request.ip },
      );
    } catch (error) {
      // A person is looking at this answer, not a program: during an outage of our database or Redis,
      // a page that tries again by itself rather than a JSON 503. Nothing was claimed (the claim is the
      // first write), so the same URL works once the dependency is back.
      if (!dependencyFailureOf(error)) throw error;
      await reply
        .status(503)
        .header('retry-after', String(DEPENDENCY_RETRY_AFTER_SECONDS))
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .type('text/html; charset=utf-8')
        .send(RETRY_PAGE);
      return;
    }
    await redirect(reply, location);
  }
}

/** This URL carried a token or a signed link: no Referer to where it goes, and no caching of the answer. */
async function redirect(reply: FastifyReply, location: string): Promise<void> {
  await reply
    .status(302)
    .header('location', location)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send();
}
