import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsISO8601, IsOptional, Matches } from 'class-validator';
import { ConsentLifecycleRepository } from '#libs/domain/consents';
import { ApiEnvelope, Auth, AuthKind, TracingId, envelope } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';

export class ConsentCountsQueryDto {
  @ApiPropertyOptional({ example: 'AUTHORIZED', description: 'Only consents in this status' })
  @IsOptional()
  @Matches(/^[A-Z_]{1,64}$/, { message: 'status must be a consent status such as AUTHORIZED' })
  status?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only consents expiring before this time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiringBefore?: string;
}

class MerchantConsentCountDto {
  @ApiProperty({ format: 'uuid' }) merchantId!: string;
  @ApiProperty() merchantName!: string;
  @ApiProperty() status!: string;
  @ApiProperty() count!: number;
}

class ConsentCountsDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, example: { AUTHORIZED: 1200 } })
  byStatus!: Record<string, number>;
  @ApiProperty({ type: [MerchantConsentCountDto] }) byMerchant!: MerchantConsentCountDto[];
}

/** How many customers are about to drop off: consents by status and merchant. */
@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/consents')
export class AdminConsentsController {
  constructor(private readonly lifecycle: ConsentLifecycleRepository) {}

  @Get()
  @ApiOperation({
    summary: 'Consent counts by status and by merchant',
    description:
      'For example `?status=AUTHORIZED&expiringBefore=<in 7 days>`: the customers who drop off within a week unless they re-authorise.',
  })
  @ApiOkResponse({ type: ApiEnvelope(ConsentCountsDto) })
  @ApiInvalid()
  async counts(@Query() query: ConsentCountsQueryDto, @TracingId() tracingId: string) {
    return envelope(
      tracingId,
      await this.lifecycle.counts({
        status: query.status,
        expiringBefore: query.expiringBefore ? new Date(query.expiringBefore) : undefined,
      }),
    );
  }
}
