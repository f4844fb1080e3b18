import { ApiProperty } from '@nestjs/swagger';

export class CreatedConsentOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_AUTHORIZATION' }) status: string;
  @ApiProperty({ description: "The bank's page: send the user's browser here" }) authorisationUrl: string;
  @ApiProperty() institutionId: string;
  @ApiProperty({
    format: 'date-time',
    description: 'The bank’s expiry, else the one asked for (90 days from now when none was)',
  })
  expiresAt: string;
  @ApiProperty({
    description:
      'Whether the BFF asks the bank to re-authorise it before it expires (as asked, or the default)',
  })
  autoReauthorise: boolean;
}
