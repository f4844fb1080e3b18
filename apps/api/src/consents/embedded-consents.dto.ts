import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsInstitutionId } from '../common/field-rules.js';
import { IsScopes } from './consents.dto.js';

export class EmbeddedCredentialsDto {
  @ApiProperty({ description: "The PSU's user id at the bank", maxLength: 255 })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  id: string;

  @ApiProperty({ description: 'Sent straight to the upstream; never stored or logged', maxLength: 255 })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  password: string;
}

export class CreateEmbeddedConsentDto {
  @ApiProperty({ example: 'sandbox-embedded', maxLength: 255 })
  @IsInstitutionId()
  institutionId: string;

  @ApiProperty({ type: EmbeddedCredentialsDto })
  @IsObject()
  @ValidateNested()
  @Type(() => EmbeddedCredentialsDto)
  credentials: EmbeddedCredentialsDto;

  @ApiPropertyOptional({
    type: [String],
    example: ['ACCOUNTS', 'ACCOUNT_BALANCES', 'ACCOUNT_TRANSACTIONS'],
    description: 'Upstream features to ask for; omitted: every data feature of the institution.',
    maxItems: 30,
  })
  @IsOptional()
  @IsScopes()
  scopes?: string[];
}

export class SelectScaMethodDto {
  @ApiProperty({ example: 'sbx-sms-otp', description: 'One of the `scaMethods` ids', maxLength: 255 })
  @IsString()
  @Matches(/^[A-Za-z0-9._:-]{1,255}$/, { message: 'scaMethodId must be an SCA method id' })
  scaMethodId: string;
}

export class ScaCodeDto {
  @ApiProperty({ example: '123456', description: 'Single use; sent straight to the upstream', maxLength: 64 })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  code: string;
}

export class ScaMethodDto {
  @ApiProperty({ example: 'sbx-sms-otp' }) id: string;
  @ApiProperty({ type: String, nullable: true, example: 'SMS_OTP' }) type: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
}

export class EmbeddedConsentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    example: 'AWAITING_SCA_METHOD',
    description:
      'AWAITING_SCA_METHOD (with scaMethods), AWAITING_SCA_CODE, or AWAITING_AUTHORIZATION (the BFF polls the bank)',
  })
  status: string;
  @ApiProperty() institutionId: string;
  @ApiPropertyOptional({ type: [ScaMethodDto], description: 'While AWAITING_SCA_METHOD' })
  scaMethods?: ScaMethodDto[];
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
}

export class ConsentStatusDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    example: 'AWAITING_AUTHORIZATION',
    description: 'After the code: AWAITING_AUTHORIZATION until the poll ends; read GET /v1/consents/{id}',
  })
  status: string;
}
