import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiOpenSchema } from '../../common/openapi-open-schemas.js';
import { ControlParametersOutput } from './created-vrp-consent.output.js';

/** The upstream's hosted request, straight through but for `result`: besides `requestId`, what it gives. */
const AS_GIVEN = 'As the upstream gives it; absent when it gives none';

@ApiOpenSchema()
export class HostedVrpRequestOutput {
  /** Open: the fields the upstream gives beyond those named (see ApiOpenSchema). */
  [field: string]: unknown;
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
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'Our consent for it, once the user approved (pay with POST /v1/vrp/consents/{consentId}/payments); null before, and for a request not made through POST /v1/users/{userId}/hosted/vrp-requests',
  })
  consentId!: string | null;
}

export class CreatedHostedVrpRequestOutput {
  @ApiProperty({ format: 'uuid', description: 'The upstream’s id of the request' }) requestId!: string;
  @ApiProperty({ format: 'uri', description: 'Send the user here: the upstream’s hosted page' })
  hostedUrl!: string;
  @ApiProperty() institutionId!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The user must approve by then (null when the upstream gives no time)',
  })
  authorisationExpiresAt!: string | null;
  @ApiProperty({ type: ControlParametersOutput, description: 'The limits asked for, defaults filled in' })
  controlParameters!: ControlParametersOutput;
}
