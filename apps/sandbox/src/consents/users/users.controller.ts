import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isUuid } from '#libs/ids';
import {
  Ctx,
  envelope,
  type SandboxContext,
  SandboxError,
  type SandboxUser,
  UsersStore,
} from '../../core/index.js';
import { FinancialDataStore } from '../../data/financial-data.store.js';
import { ConsentFlowsService } from '../consent-flows.service.js';
import { listParam, validateAs } from '../manual-validation.js';
import { NewUserDto, UserPatchOperationDto, UsersQueryDto } from './users.dto.js';

function conflict(applicationUserId: string): SandboxError {
  const message = `A user with applicationUserId ${applicationUserId} already exists in this application`;
  return new SandboxError(409, message, [
    { type: 'CONFLICT', code: 'USER_ALREADY_EXISTS', parameter: 'applicationUserId', message },
  ]);
}

/** Users (upstream spec §2.3, 4.4). As upstream, the user routes answer the bare user, not an envelope (except DELETE). */
@Controller('users')
export class UsersController {
  constructor(
    private readonly users: UsersStore,
    private readonly flows: ConsentFlowsService,
  ) {}

  @Post()
  create(@Ctx() ctx: SandboxContext, @Body() body: NewUserDto) {
    if (
      body.applicationUserId &&
      this.users.findByApplicationUserId(ctx.application.id, body.applicationUserId)
    ) {
      throw conflict(body.applicationUserId);
    }
    const user = this.users.create(ctx.application.id, {
      applicationUserId: body.applicationUserId,
      referenceId: body.referenceId,
      vopOptOut: body.vopOptOut ?? false,
    });
    return this.flows.userView(user);
  }

  @Get()
  list(@Ctx() ctx: SandboxContext, @Query() query: UsersQueryDto) {
    const wanted = listParam(query['filter[applicationUserId]']);
    return this.users
      .list(ctx.application.id)
      .filter((u) => !wanted || (u.applicationUserId !== undefined && wanted.includes(u.applicationUserId)))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((u) => this.flows.userView(u));
  }

  @Get(':userUuid')
  get(@Ctx() ctx: SandboxContext, @Param('userUuid') userUuid: string) {
    return this.flows.userView(this.mustGet(ctx, userUuid));
  }

  /** JSON-patch of applicationUserId, referenceId and vopOptOut; answers 201 "Created" as documented. */
  @Patch(':userUuid')
  @HttpCode(201)
  patch(
    @Ctx() ctx: SandboxContext,
    @Param('userUuid') userUuid: string,
    @Req() request: FastifyRequest,
    @Body() body: unknown,
  ) {
    const contentType = String(request.headers['content-type'] ?? '');
    if (!contentType.toLowerCase().startsWith('application/json-patch+json')) {
      const message = 'Update User takes Content-Type application/json-patch+json';
      throw new SandboxError(415, message, [
        { type: 'UNSUPPORTED_MEDIA_TYPE', code: 'UNSUPPORTED_MEDIA_TYPE', message },
      ]);
    }
    const user = this.mustGet(ctx, userUuid);
    if (!Array.isArray(body) || body.length === 0) {
      throw SandboxError.invalidProperty('body', 'The body must be a non-empty array of patch operations');
    }
    const operations = body.map((item, index) =>
      validateAs(UserPatchOperationDto, item, { prefix: `[${index}]` }),
    );
    const next = this.patched(ctx, user, operations);
    const renamed = next.applicationUserId !== user.applicationUserId;
    // The bank's data stays the user's: seeded by the name it had (FinancialDataStore.seedOf).
    if (renamed) next.dataKey ??= FinancialDataStore.userKeyOf({ ...user, userUuid: user.uuid });
    this.users.update(next);
    if (renamed || next.referenceId !== user.referenceId) {
      // Consents show their user's references, so they follow the user's new ones.
      for (const record of this.flows.list(ctx.application.id).filter((c) => c.userUuid === user.uuid)) {
        record.dataKey ??= FinancialDataStore.userKeyOf(record);
        record.applicationUserId = next.applicationUserId;
        record.referenceId = next.referenceId;
      }
    }
    return this.flows.userView(next);
  }

  /** The user with the patch's operations applied, each value checked as the upstream checks it. */
  private patched(ctx: SandboxContext, user: SandboxUser, operations: UserPatchOperationDto[]): SandboxUser {
    const next: SandboxUser = { ...user };
    operations.forEach((operation, index) => {
      const value = operation.value;
      const parameter = `[${index}].value`;
      switch (operation.path) {
        case '/applicationUserId': {
          if (typeof value !== 'string' || value.length === 0 || value.length > 255) {
            throw SandboxError.invalidProperty(parameter, 'applicationUserId must be a non-empty string');
          }
          const holder = this.users.findByApplicationUserId(ctx.application.id, value);
          if (holder && holder.uuid !== user.uuid) throw conflict(value);
          next.applicationUserId = value;
          break;
        }
        case '/referenceId':
          if (typeof value !== 'string' || value.length > 255) {
            throw SandboxError.invalidProperty(parameter, 'referenceId must be a string');
          }
          next.referenceId = value;
          break;
        case '/vopOptOut':
          if (value !== 'true' && value !== 'false') {
            throw SandboxError.invalidProperty(parameter, 'vopOptOut must be "true" or "false"');
          }
          next.vopOptOut = value === 'true';
          break;
      }
    });
    return next;
  }

  /** Deletes the user and every consent of theirs (revoked: their tokens stop working). */
  @Delete(':userUuid')
  delete(@Ctx() ctx: SandboxContext, @Param('userUuid') userUuid: string, @Req() request: FastifyRequest) {
    const user = this.mustGet(ctx, userUuid);
    const consents = this.flows.deleteUser(user);
    return envelope(request, {
      id: user.uuid,
      deleteStatus: 'SUCCESS',
      creationDate: user.createdAt,
      userConsents: consents.map((c) => ({
        id: c.id,
        deleteStatus: 'SUCCESS',
        institutionId: c.institutionId,
        institutionConsentId: c.institutionConsentId,
        creationDate: c.createdAt,
      })),
    });
  }

  private mustGet(ctx: SandboxContext, userUuid: string): SandboxUser {
    if (!isUuid(userUuid)) throw SandboxError.invalidProperty('userUuid', 'userUuid must be a UUID');
    const user = this.users.get(ctx.application.id, userUuid);
    if (!user) throw SandboxError.notFound(`User ${userUuid} was not found`);
    return user;
  }
}
