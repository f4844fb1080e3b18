import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ScaMethodOutput {
  @ApiProperty({ example: 'sbx-sms-otp' }) id: string;
  @ApiProperty({ type: String, nullable: true, example: 'SMS_OTP' }) type: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
}

export class EmbeddedConsentOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    example: 'AWAITING_SCA_METHOD',
    description:
      'AWAITING_SCA_METHOD (with scaMethods), AWAITING_SCA_CODE, or AWAITING_AUTHORIZATION (the BFF polls the bank)',
  })
  status: string;
  @ApiProperty() institutionId: string;
  @ApiPropertyOptional({
    type: [ScaMethodOutput],
    description: 'With AWAITING_SCA_METHOD only: the methods to choose from; absent in any other status',
  })
  scaMethods?: ScaMethodOutput[];
  @ApiProperty({
    format: 'date-time',
    description: 'The bank’s expiry, else the one asked for (90 days from now when none was)',
  })
  expiresAt: string;
}

export class ConsentStatusOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    example: 'AWAITING_AUTHORIZATION',
    description: 'After the code: AWAITING_AUTHORIZATION until the poll ends; read GET /v1/consents/{id}',
  })
  status: string;
}
