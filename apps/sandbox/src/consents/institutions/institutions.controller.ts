import { Controller, Get, Param, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { envelope, InstitutionsCatalog, SandboxError } from '../../core/index.js';

/** The fixture institutions. The list is an envelope; a single institution is answered bare, as upstream. */
@Controller('institutions')
export class InstitutionsController {
  constructor(private readonly catalog: InstitutionsCatalog) {}

  @Get()
  list(@Req() request: FastifyRequest) {
    return envelope(
      request,
      this.catalog.all().map((i) => InstitutionsCatalog.view(i)),
    );
  }

  @Get(':institutionId')
  get(@Param('institutionId') id: string) {
    const institution = this.catalog.find(id);
    if (!institution) throw SandboxError.notFound(`Institution ${id} was not found`);
    return InstitutionsCatalog.view(institution);
  }
}
