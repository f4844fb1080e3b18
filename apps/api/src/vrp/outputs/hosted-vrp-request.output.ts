import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiOpenSchema } from '../../common/openapi-open-schemas.js';

/** The upstream's hosted request, straight through but for `result`: besides `requestId`, what it gives. */
const AS_GIVEN = 'As the upstream gives it; absent when it gives none';

@ApiOpenSchema()
export class HostedVrpRequestOutput {
  @ApiProperty() requestId: string;
  @ApiPropertyOptional({ description: AS_GIVEN }) applicationUserId?: string;
  @ApiPropertyOptional({ format: 'date-time', description: AS_GIVEN }) createdAt?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `{ currentStatus: created|succeed|rejected|failed|expired, statusUpdatedAt, … }. ${AS_GIVEN}`,
  })
  status?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      '{ upstreamConsentId } once succeeded (absent until the upstream gives a result); the consent token is never returned',
  })
  result?: unknown;
}
