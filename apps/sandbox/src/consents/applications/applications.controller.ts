import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  ApplicationRegistryService,
  Ctx,
  envelope,
  type SandboxApplication,
  type SandboxContext,
  SandboxError,
} from '../../core/index.js';
import { validateAs } from '../manual-validation.js';
import { ApplicationsQueryDto, CreateApplicationDto } from './applications.dto.js';

function view(app: SandboxApplication) {
  const { createdAt: _createdAt, ...rest } = ApplicationRegistryService.view(app);
  return rest;
}

const SORT_KEYS: Record<string, (a: SandboxApplication) => string> = {
  last_updated: (a) => a.createdAt,
  name: (a) => a.name.toLowerCase(),
  uuid: (a) => a.id,
};

/**
 * Application management (upstream spec §4.5). Validation errors answer in the `{ errors: [...] }` shape these
 * endpoints document. A sub-application has no secret of its own here, as upstream: it is reached with
 * the root application's credentials plus the `sub-application` header.
 */
@Controller('applications')
export class ApplicationsController {
  constructor(private readonly applications: ApplicationRegistryService) {}

  @Get()
  list(@Ctx() ctx: SandboxContext, @Query() raw: Record<string, unknown>, @Req() request: FastifyRequest) {
    const query = validateAs(ApplicationsQueryDto, { ...raw }, { shape: 'fieldValidation' });
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 1000;
    const sort = query.sort ?? 'name';
    // Credentials (or a header) acting as a sub-application see no sub-applications at all.
    const all = ctx.application.rootApplicationId
      ? []
      : this.applications.subApplicationsOf(ctx.application.id);
    const key = SORT_KEYS[sort.replace(/^-/, '')];
    const direction = sort.startsWith('-') ? -1 : 1;
    const matching = all
      .filter((a) => !query.applicationIds || query.applicationIds.includes(a.id))
      .sort((a, b) => direction * key(a).localeCompare(key(b)) || a.id.localeCompare(b.id));
    const page = matching.slice(offset, offset + limit).map(view);
    return envelope(request, page, {
      meta: { pagination: { self: { offset, limit, sort }, totalCount: matching.length } },
    });
  }

  @Get(':applicationId')
  get(@Ctx() ctx: SandboxContext, @Param('applicationId') id: string, @Req() request: FastifyRequest) {
    const app = this.applications.get(id);
    const visible =
      app &&
      (app.id === ctx.application.id ||
        (!ctx.application.rootApplicationId && app.rootApplicationId === ctx.application.id));
    if (!app || !visible) throw SandboxError.notFound(`Application ${id} was not found`);
    return envelope(request, view(app));
  }

  @Post()
  create(@Ctx() ctx: SandboxContext, @Body() raw: unknown, @Req() request: FastifyRequest) {
    if (ctx.application.rootApplicationId) {
      throw SandboxError.forbidden('Only a root application can create sub-applications');
    }
    const body = validateAs(CreateApplicationDto, raw, { shape: 'fieldValidation' });
    const app = this.applications.createSubApplication(ctx.application.id, {
      name: body.name,
      merchantCategoryCode: Number(body.merchantCategoryCode),
      callbackUrls: body.callbackUrls,
    });
    // The registry fixes these two; the request decides them upstream.
    app.ppcUserGroup = body.ppcUserGroup;
    app.isContractPresent = body.isContractPresent;
    return envelope(request, view(app));
  }
}
