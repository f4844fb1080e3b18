import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiOpenSchema } from '../../common/openapi-open-schemas.js';

/** The bank's beneficiary, straight through (amounts as decimal strings): besides `id`, what the bank gives. */
@ApiOpenSchema()
export class BeneficiaryOutput {
  /** Open: the fields the upstream gives beyond those named (see ApiOpenSchema). */
  [field: string]: unknown;
  @ApiProperty() id: string;
  @ApiPropertyOptional({ description: 'Absent when the bank does not say' }) trusted?: boolean;
  @ApiPropertyOptional({ description: 'Absent when the bank gives none' }) reference?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The payee as the bank describes it; absent when it gives none',
  })
  payee?: unknown;
}
