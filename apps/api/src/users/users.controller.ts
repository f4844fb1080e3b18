import { Body, Controller, Delete, Get, HttpCode, Inject, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { TenantCaller } from '#libs/context';
import { mintSessionToken, UsersService } from '#libs/domain/users';
import {
  ApiAnswer,
  ApiErrorResponse,
  ApiOneOrPageAnswer,
  Auth,
  AuthKind,
  envelope,
  type Served,
  Tenant,
} from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { KeptAnswer } from '../common/kept-answer.hook.js';
import { UserOutput } from '../common/outputs/user.output.js';
import { keysetPage } from '../common/paging.js';
import { CreateUserInput } from './inputs/create-user.input.js';
import { ListUsersInput } from './inputs/list-users.input.js';
import { UpdateUserInput } from './inputs/update-user.input.js';
import { UserSessionOutput } from './outputs/user-session.output.js';

/** Routes whose input goes upstream: a refusal there is the caller's 400, never an outage. */
const refused = {
  type: ApiErrorResponse,
  description: 'VALIDATION_FAILED: the input, or the upstream refused it (its reason in the details)',
};
const missing = {
  type: ApiErrorResponse,
  description: "NOT_FOUND: no such user, another merchant's user, or (session) another user",
};
const upstreamDown = {
  type: ApiErrorResponse,
  description: 'UPSTREAM_UNAVAILABLE, with the upstream tracingId in error.upstream',
};

@ApiTags('users')
@ApiExtraModels(UserOutput)
@Controller('v1/users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @Auth(AuthKind.Merchant)
  @Idempotent()
  @ApiOperation({
    summary: 'Create a user, or return the one with this reference',
    description:
      "Creates the user locally and upstream (on the merchant's sub-application, if any). 201 when created, 200 with the same body when the merchant already has a user with this reference; concurrent creates of one reference yield one user. If the upstream fails, the error is returned and a retry finishes the same user. With Idempotency-Key, a replay returns the first answer's body with status 201.",
  })
  @ApiAnswer(201, UserOutput, { description: 'Created' })
  @ApiAnswer(200, UserOutput, { description: 'Already existed (same body)' })
  @ApiBadRequestResponse(refused)
  @ApiServiceUnavailableResponse(upstreamDown)
  async create(
    @Body() body: CreateUserInput,
    @Tenant() caller: TenantCaller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { user, created } = await this.users.create(caller, body);
    if (!created) void reply.status(200);
    return envelope(user);
  }

  @Get()
  @Auth(AuthKind.Merchant)
  @KeptAnswer()
  @ApiOperation({
    summary: 'Find a user by reference, or list users',
    description:
      'With `reference`: `data` is that one user (404 if none). Without: `data` is a page of users, oldest first, paged by an opaque cursor.',
  })
  @ApiOneOrPageAnswer(UserOutput, 'With `reference`: one user. Without: a page of users.')
  @ApiInvalid()
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND: no user with this reference' })
  async list(
    @Query() query: ListUsersInput,
    @Tenant() caller: TenantCaller,
  ): Promise<Served<UserOutput | UserOutput[]>> {
    if (query.reference !== undefined) {
      return envelope(await this.users.findByReference(caller, query.reference));
    }
    const page = keysetPage(query, '/v1/users');
    const { users, nextAfterId } = await this.users.list(caller, page.limit, page.after);
    return page.answer(users, nextAfterId);
  }

  @Get(':userId')
  @KeptAnswer()
  @Auth(AuthKind.Merchant, AuthKind.UserSession)
  @ApiOperation({
    summary: 'One user',
    description:
      'A session token may read only its own user; any other user answers 404, like a missing one.',
  })
  @ApiAnswer(200, UserOutput)
  @ApiNotFoundResponse(missing)
  async get(@IdParam('userId') userId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.users.get(caller, userId));
  }

  @Patch(':userId')
  @Auth(AuthKind.Merchant)
  @ApiOperation({
    summary: 'Change a user',
    description:
      'Sent upstream first as a JSON-patch of `replace` operations (a new reference also renames the upstream applicationUserId); nothing changes locally if the upstream refuses. Merchant key only: a browser must not rename or re-flag its user.',
  })
  @ApiAnswer(200, UserOutput)
  @ApiBadRequestResponse(refused)
  @ApiNotFoundResponse(missing)
  @ApiConflictResponse({
    type: ApiErrorResponse,
    description:
      'CONFLICT: another user has this reference, or the upstream has no record of this user (deleted there); not worth retrying: erase and re-create the user',
  })
  @ApiServiceUnavailableResponse(upstreamDown)
  async update(
    @IdParam('userId') userId: string,
    @Body() body: UpdateUserInput,
    @Tenant() caller: TenantCaller,
  ) {
    return envelope(await this.users.update(caller, userId, body));
  }

  @Delete(':userId')
  @HttpCode(204)
  @Auth(AuthKind.Merchant)
  @ApiOperation({
    summary: 'Erase a user',
    description:
      'Deletes the user upstream (revoking their consents there), then every local consent, account and transaction of theirs. Their session tokens stop working at once.',
  })
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiInvalid('VALIDATION_FAILED: the upstream refused to erase the user (its reason in the details)')
  @ApiNotFoundResponse(missing)
  @ApiServiceUnavailableResponse(upstreamDown)
  async delete(@IdParam('userId') userId: string, @Tenant() caller: TenantCaller): Promise<void> {
    await this.users.delete(caller, userId);
  }

  @Post(':userId/sessions')
  @Auth(AuthKind.Merchant)
  @ApiOperation({
    summary: "Mint a session token for the user's frontend",
    description:
      "The token may call only this user's routes. No Idempotency-Key: minting has no side effect, so a retry simply mints another, and a stored answer would keep a live token at rest.",
  })
  @ApiAnswer(201, UserSessionOutput)
  @ApiNotFoundResponse(missing)
  async createSession(@IdParam('userId') userId: string, @Tenant() caller: TenantCaller) {
    const user = await this.users.get(caller, userId);
    const { token, expiresAt } = mintSessionToken(
      this.config.crypto.signingSecret,
      { merchantId: caller.merchantId, userId: user.id },
      this.config.crypto.sessionTtlSeconds,
    );
    return envelope({ token, expiresAt: expiresAt.toISOString() });
  }
}
