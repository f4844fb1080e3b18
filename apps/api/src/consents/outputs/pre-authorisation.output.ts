import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class PreAuthorisationOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_AUTHORIZATION' }) status: string;
  @ApiProperty({ type: [String] }) featureScope: string[];
  @ApiPropertyOptional({ description: "The bank's page, when the PSU must approve the new terms" })
  authorisationUrl?: string;
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
}
