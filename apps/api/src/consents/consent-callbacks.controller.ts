import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiConsumes,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ConsentCallbackService,
  ConsentRenewalLinkService,
  REAUTHORISATION_LINK_PATH,
} from '#libs/domain/consents';
import { dependencyFailureOf } from '#libs/errors';
import { ApiErrorResponse, DEPENDENCY_RETRY_AFTER_SECONDS, Public } from '#libs/http';
import { PUBLIC_ROUTES } from '#libs/routes';
import { ApiInvalid } from '../common/api-responses.js';
import { IgnoresUndeclaredQuery } from '../common/undeclared-query.hook.js';
import { renewalPage, RENEWED_PAGE, RETRY_PAGE, sendPage } from './consent-callback.pages.js';
import { ConsentCallbackInput } from './inputs/consent-callback.input.js';
import { ReauthorisationLinkInput } from './inputs/reauthorisation-link.input.js';

const BAD_LINK = { type: ApiErrorResponse, description: 'VALIDATION_FAILED: the link is invalid or expired' };
const ENDED = {
  type: ApiErrorResponse,
  description: 'CONSENT_NOT_AUTHORISED: the consent has ended (connect the bank again)',
};

@ApiTags('consents')
@Controller(PUBLIC_ROUTES.consentCallback)
export class ConsentCallbacksController {
  constructor(
    private readonly consents: ConsentCallbackService,
    private readonly renewal: ConsentRenewalLinkService,
  ) {}

  // Public: the user's browser, sent by the merchant with the link of consent.reauthorisation_required
  // at a bank that needs the user present; the signed link is what authenticates it. Opening it only
  // shows a page (a GET or HEAD from a mail scanner or a prefetch must not suspend the consent).
  @Get(REAUTHORISATION_LINK_PATH)
  @Public()
  // The link travels through the merchant's mail or chat service, which may add its own tracking
  // parameters (`utm_source`, `fbclid`, …) on the way: a user must not meet a 400 for those.
  @IgnoresUndeclaredQuery()
  @ApiOperation({
    summary: 'Re-authorisation with the user present: the page (the browser, from the merchant)',
    description:
      'The `reauthorisationUrl` of a consent.reauthorisation_required with `userPresenceRequired`: the merchant sends the user’s browser here, never builds it. Opening it changes nothing (a mail client’s link scanner, a prefetch or a reload may open it): it answers a page whose button, pressed by the user, posts the link to POST /v1/callbacks/consents/reauthorise. Once the consent is renewed, the page says so and has no button. A link that is invalid or past the consent’s expiry answers 400; one of a consent that has ended, 409.',
  })
  @ApiResponse({
    status: 200,
    description: 'The page: its button continues to the bank, or it says the consent is already renewed',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiBadRequestResponse(BAD_LINK)
  @ApiConflictResponse(ENDED)
  async renewalPage(@Query() query: ReauthorisationLinkInput, @Res() reply: FastifyReply): Promise<void> {
    const due = (await this.renewal.linkedRenewal(query.link)) === 'due';
    await sendPage(reply, 200, due ? renewalPage(query.link) : RENEWED_PAGE);
  }

  // Public: the user pressed the page's button; the signed link in the form is what authenticates it.
  @Post(REAUTHORISATION_LINK_PATH)
  @Public()
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({
    summary: 'Re-authorisation with the user present: the user continues to the bank',
    description:
      'The form of the GET’s page. We ask the bank to renew the consent with the user’s own address and the PSU ids given at creation, then 303 to the bank’s page; the usual callback completes it. Once the consent is renewed it asks nothing and answers the page saying so. A link that is invalid or past the consent’s expiry answers 400; one of a consent that has ended, 409.',
  })
  @ApiResponse({ status: 303, description: 'To the bank’s page' })
  @ApiResponse({
    status: 200,
    description: 'The consent is already renewed: a page saying so, nothing asked',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiBadRequestResponse(BAD_LINK)
  @ApiConflictResponse(ENDED)
  async reauthorise(
    @Body() body: ReauthorisationLinkInput,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // The user is here now: the bank is asked with their address, then their browser goes on to it.
    const location = await this.renewal.reauthoriseByLink(body.link, request.ip);
    if (location === null) await sendPage(reply, 200, RENEWED_PAGE);
    else await redirect(reply, location, 303);
  }

  // Public: the user's browser arrives here from the bank with no credentials of ours; the signed,
  // single-use state is what authenticates the request.
  @Get()
  @Public()
  // The upstream builds this URL, not us: a parameter it starts to send must not strand the user
  // between the bank and the merchant with a 400.
  @IgnoresUndeclaredQuery()
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
  @ApiInvalid('VALIDATION_FAILED: invalid or expired state')
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
      reply.header('retry-after', String(DEPENDENCY_RETRY_AFTER_SECONDS));
      await sendPage(reply, 503, RETRY_PAGE);
      return;
    }
    await redirect(reply, location);
  }
}

/** This URL carried a token or a signed link: no Referer to where it goes, and no caching of the answer. */
async function redirect(reply: FastifyReply, location: string, status = 302): Promise<void> {
  await reply
    .status(status)
    .header('location', location)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send();
}
