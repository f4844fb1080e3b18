import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { IsInstitutionId } from '../../common/field-rules.js';
import { OptionalScopes } from './create-consent.input.js';

export class EmbeddedCredentialsInput {
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

export class CreateEmbeddedConsentInput {
  @ApiProperty({ example: 'sandbox-embedded', maxLength: 255 })
  @IsInstitutionId()
  institutionId: string;

  @ApiProperty({ type: EmbeddedCredentialsInput })
  @IsObject()
  @ValidateNested()
  @Type(() => EmbeddedCredentialsInput)
  credentials: EmbeddedCredentialsInput;

  @OptionalScopes()
  scopes?: string[];
}
