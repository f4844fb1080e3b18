import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  ConsentsStore,
  Ctx,
  envelope,
  MAX_DATA_CONSENT_MS,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
} from '../core/index.js';
import { type AccountConsentDetails, ConsentFlowsService } from './consent-flows.service.js';
import {
  ConsentsQueryDto,
  DeleteConsentQueryDto,
  ExtendConsentDto,
  OneTimeTokenDto,
} from './consents.dto.js';

/** GET /consents without a user filter answers at most this many, newest first (upstream spec §8). */
export const UNFILTERED_CONSENTS_CAP = 1000;

/** Consents of every kind (upstream spec §2.4, 4.8). Version 2.0-ALPHA drops the fields upstream spec §9 lists. */
@Controller('consents')
export class ConsentsController {
  constructor(
    private readonly flows: ConsentFlowsService,
    private readonly consents: ConsentsStore,
    private readonly clock: SandboxClockService,
  ) {}

  @Get()
  list(@Ctx() ctx: SandboxContext, @Query() query: ConsentsQueryDto, @Req() request: FastifyRequest) {
    const byAppUser = query['filter[applicationUserId]'];
    const byUser = query['filter[userUuid]'];
    const byInstitution = query['filter[institution]'];
    const byStatus = query['filter[status]'];
    const from = query.from ? Date.parse(query.from) : undefined;
    const before = query.before ? Date.parse(query.before) : undefined;
    // Newest first; consents created within the same millisecond keep their creation order reversed.
    const matching = this.flows
      .list(ctx.application.id)
      .reverse()
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .filter(
        (c) =>
          (!byAppUser || (c.applicationUserId !== undefined && byAppUser.includes(c.applicationUserId))) &&
          (!byUser || byUser.includes(c.userUuid)) &&
          (!byInstitution || byInstitution.includes(c.institutionId)) &&
          (!byStatus || byStatus.includes(c.status)) &&
          (from === undefined || Date.parse(c.createdAt) >= from) &&
          (before === undefined || Date.parse(c.createdAt) <= before),
      );
    const offset = query.offset ?? 0;
    const userFiltered = Boolean(byAppUser?.length || byUser?.length);
    const limit = query.limit ?? (userFiltered ? undefined : UNFILTERED_CONSENTS_CAP);
    const page = matching.slice(offset, limit === undefined ? undefined : offset + limit);
    return envelope(
      request,
      page.map((c) => this.flows.wire(c, ctx.apiVersion)),
      {
        meta: {
          pagination: {
            totalCount: matching.length,
            self: { sort: '-date', offset, ...(limit !== undefined ? { limit } : {}) },
          },
        },
      },
    );
  }

  /** Get Consent; for an embedded consent whose SCA code was accepted this is the poll that completes it. */
  @Get(':consentId')
  get(@Ctx() ctx: SandboxContext, @Param('consentId') id: string, @Req() request: FastifyRequest) {
    const record = this.flows.poll(this.flows.mustFind(ctx.application.id, id));
    return envelope(request, this.flows.wire(record, ctx.apiVersion));
  }

  /** Delete Consent revokes it: it stays readable with status REVOKED and its token stops working. */
  @Delete(':consentId')
  delete(
    @Ctx() ctx: SandboxContext,
    @Param('consentId') id: string,
    @Query() _query: DeleteConsentQueryDto,
    @Req() request: FastifyRequest,
  ) {
    const record = this.flows.mustFind(ctx.application.id, id);
    record.status = 'REVOKED';
    this.consents.update(record);
    return envelope(request, {
      id: record.id,
      deleteStatus: 'SUCCESS',
      institutionId: record.institutionId,
      institutionConsentId: record.institutionConsentId,
      creationDate: record.createdAt,
    });
  }

  /** Records a reconfirmation by the PSU: reconfirmBy moves to 90 days after lastConfirmedAt. */
  @Post(':consentId/extend')
  @HttpCode(200)
  extend(
    @Ctx() ctx: SandboxContext,
    @Param('consentId') id: string,
    @Body() body: ExtendConsentDto,
    @Req() request: FastifyRequest,
  ) {
    const record = this.flows.mustFind(ctx.application.id, id);
    const confirmed = Date.parse(body.lastConfirmedAt);
    if (confirmed > this.clock.nowMs()) {
      throw SandboxError.invalidProperty(
        'lastConfirmedAt',
        'lastConfirmedAt cannot be a future date and time',
      );
    }
    if (record.kind !== 'ACCOUNT' || record.status !== 'AUTHORIZED') {
      throw SandboxError.badRequest(
        `Only an AUTHORIZED account consent can be extended; ${id} is ${record.kind} ${record.status}`,
      );
    }
    const details = (record.details ?? {}) as AccountConsentDetails;
    record.details = {
      ...details,
      lastConfirmedAt: new Date(confirmed).toISOString(),
      reconfirmBy: new Date(confirmed + MAX_DATA_CONSENT_MS).toISOString(),
    };
    this.consents.update(record);
    return envelope(request, this.flows.wire(record));
  }
}

/** Exchange One Time Token: answers the bare consent with its consentToken, once. */
@Controller('consent-one-time-token')
export class OneTimeTokenController {
  constructor(private readonly flows: ConsentFlowsService) {}

  @Post()
  exchange(@Ctx() ctx: SandboxContext, @Body() body: OneTimeTokenDto) {
    return this.flows.wire(this.flows.redeemOneTimeToken(ctx, body.oneTimeToken));
  }
}
