import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class PreAuthorisationOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_AUTHORIZATION' }) status: string;
  @ApiProperty({ type: [String] }) featureScope: string[];
  @ApiPropertyOptional({
    description:
      "The bank's page, when the PSU must approve the new terms; absent when the upstream gives none",
  })
  authorisationUrl?: string;
  @ApiProperty({
    format: 'date-time',
    description: 'The bank’s expiry, else the one asked for (90 days from now when none was)',
  })
  expiresAt: string;
}
