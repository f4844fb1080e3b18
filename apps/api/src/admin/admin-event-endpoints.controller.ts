import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { EventEndpointsService } from '#libs/domain/events';
import { ApiAnswer, Auth, AuthKind } from '#libs/http';
import { listEnvelope } from '../common/paging.js';
import { TroubledEventEndpointOutput } from './outputs/troubled-event-endpoint.output.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** What the operator needs to see of merchants' endpoints: which are failing or disabled, and why. */
@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/event-endpoints')
export class AdminEventEndpointsController {
  constructor(private readonly endpoints: EventEndpointsService) {}

  @Get()
  @ApiOperation({
    summary: 'Merchant endpoints that are failing or disabled',
    description:
      'Across merchants, longest-failing first (at most 200): `failingSince` is the first failed attempt since the last success; `disabledAt` and `disabledReason` say when and why deliveries stopped (72 hours without a success). The merchant enables an endpoint again with POST /v1/event-endpoints/{id}/enable.',
  })
  @ApiAnswer(200, TroubledEventEndpointOutput, { list: true })
  async troubled() {
    const endpoints = (await this.endpoints.troubled()).map((e) => ({
      id: e.id,
      merchantId: e.merchantId,
      merchantName: e.merchantName,
      url: e.url,
      types: e.types,
      createdAt: e.createdAt.toISOString(),
      previousSecretExpiresAt: iso(e.previousSecretExpiresAt),
      failingSince: iso(e.failingSince),
      disabledAt: iso(e.disabledAt),
      disabledReason: e.disabledReason,
      rateLimit: e.rateLimit,
    }));
    return listEnvelope(endpoints);
  }
}
