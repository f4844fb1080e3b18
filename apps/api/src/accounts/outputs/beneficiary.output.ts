import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class BeneficiaryOutput {
  @ApiProperty() id: string;
  @ApiPropertyOptional() trusted?: boolean;
  @ApiPropertyOptional() reference?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) payee?: unknown;
}
