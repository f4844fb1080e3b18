import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, Matches } from 'class-validator';
import { IsInstitutionId, IsOptionalDateTime, IsRedirectUrl } from '../common/field-rules.js';

/** Upstream features asked for, the same rule on every consent body that has them. */
export const IsScopes = () =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(30),
    IsString({ each: true }),
    Matches(/^[A-Z_]{1,64}$/, { each: true, message: 'each scope must be an upstream feature name' }),
  );

export class CreateConsentDto {
  @ApiProperty({ example: 'sandbox-redirect', maxLength: 255 })
  @IsInstitutionId()
  institutionId: string;

  @ApiProperty({
    example: 'https://app.acme.example/banks/connected',
    maxLength: 2048,
    description:
      'Where the browser is sent after the bank, with `consentId`, `status` (AUTHORIZED, REJECTED or FAILED) and, on failure, `error`. Absolute http(s); when the merchant has frontendOrigins, its origin must be one of them.',
  })
  @IsRedirectUrl()
  redirectUrl: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['ACCOUNTS', 'ACCOUNT_BALANCES', 'ACCOUNT_TRANSACTIONS'],
    description: 'Upstream features to ask for; omitted: every data feature of the institution.',
    maxItems: 30,
  })
  @IsOptional()
  @IsScopes()
  scopes?: string[];

  @ApiPropertyOptional({ format: 'date-time', description: 'When the consent should end' })
  @IsOptionalDateTime()
  expiresAt?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  transactionsFrom?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  transactionsTo?: string;
}

export class CreatedConsentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_AUTHORIZATION' }) status: string;
  @ApiProperty({ description: "The bank's page: send the user's browser here" }) authorisationUrl: string;
  @ApiProperty() institutionId: string;
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
}

export class ReauthoriseConsentDto {
  @ApiProperty({
    example: 'https://app.acme.example/banks/reconnected',
    maxLength: 2048,
    description:
      'Where the browser is sent after the bank (as for POST /v1/users/{userId}/consents); replaces the stored one.',
  })
  @IsRedirectUrl()
  redirectUrl: string;
}

export class ReauthorisationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_RE_AUTHORIZATION' }) status: string;
  @ApiProperty({ description: "The bank's page: send the user's browser here" }) authorisationUrl: string;
}

export class PreAuthorisationDto {
  @ApiProperty({
    type: [String],
    example: ['ACCOUNTS', 'ACCOUNT_BALANCES'],
    description: 'The new upstream features of the consent',
    minItems: 1,
    maxItems: 30,
  })
  @ArrayMinSize(1)
  @IsScopes()
  scopes: string[];

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  expiresAt?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  transactionsFrom?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  transactionsTo?: string;

  @ApiPropertyOptional({
    maxLength: 2048,
    description: "Where the browser returns after the bank; omitted: the consent's current one",
  })
  @IsOptional()
  @IsRedirectUrl()
  redirectUrl?: string;
}

export class PreAuthorisationResultDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_AUTHORIZATION' }) status: string;
  @ApiProperty({ type: [String] }) featureScope: string[];
  @ApiPropertyOptional({ description: "The bank's page, when the PSU must approve the new terms" })
  authorisationUrl?: string;
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
}
