import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class HostedVrpRequestOutput {
  @ApiProperty() requestId: string;
  @ApiPropertyOptional() applicationUserId?: string;
  @ApiPropertyOptional({ format: 'date-time' }) createdAt?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: '{ currentStatus: created|succeed|rejected|failed|expired, statusUpdatedAt, … }',
  })
  status?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: '{ upstreamConsentId } once succeeded; the consent token is never returned',
  })
  result?: unknown;
}
