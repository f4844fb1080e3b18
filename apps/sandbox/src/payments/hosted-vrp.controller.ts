import { Body, Controller, Get, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Ctx, envelope, type SandboxContext } from '../core/index.js';
import { HostedVrpService } from './hosted-vrp.service.js';
import { HostedVrpRequestDto } from './vrp.dto.js';

/** Hosted commercial VRP requests (upstream spec §2.10, 4.6). */
@Controller('hosted/vrp-requests/commercial')
export class HostedVrpController {
  constructor(private readonly hosted: HostedVrpService) {}

  @Post()
  create(@Ctx() ctx: SandboxContext, @Req() request: FastifyRequest, @Body() body: HostedVrpRequestDto) {
    return envelope(request, this.hosted.createdView(this.hosted.create(ctx, body)));
  }

  @Get(':requestId')
  get(@Ctx() ctx: SandboxContext, @Req() request: FastifyRequest, @Param('requestId') requestId: string) {
    return envelope(request, this.hosted.view(this.hosted.get(ctx, requestId)));
  }
}
