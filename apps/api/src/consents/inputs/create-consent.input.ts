import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, Matches } from 'class-validator';
import { IsInstitutionId, IsRedirectUrl, OptionalDateTime } from '../../common/field-rules.js';

/** Upstream features asked for, the same rule on every consent body that has them. */
export const IsScopes = () =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(30),
    IsString({ each: true }),
    Matches(/^[A-Z_]{1,64}$/, { each: true, message: 'each scope must be an upstream feature name' }),
  );

/** The scopes of a new consent: optional, the data this service reads that the institution offers when omitted. */
export const OptionalScopes = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: [String],
      example: ['ACCOUNTS', 'ACCOUNT_BALANCES', 'ACCOUNT_TRANSACTIONS'],
      description:
        "Upstream features to ask for, each one the institution offers (else 400). Omitted: those of the institution's features this service reads (accounts, balances, transactions, statements, beneficiaries).",
      maxItems: 30,
    }),
    IsOptional(),
    IsScopes(),
  );

export class CreateConsentInput {
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

  @OptionalScopes()
  scopes?: string[];

  @OptionalDateTime(
    'When the consent should end: in the future, capped at 90 days from now; omitted, 90 days from now',
  )
  expiresAt?: string;

  @OptionalDateTime()
  transactionsFrom?: string;

  @OptionalDateTime()
  transactionsTo?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'Whether the BFF asks the bank to re-authorise the consent in its last CONSENT_REFRESH_DAYS_BEFORE_EXPIRY days (7 by default). The bank then suspends access (status AWAITING_RE_AUTHORIZATION, no sync) until the user approves at `reauthorisationUrl`. Omitted: true, unless the consent is asked to end within those days of its creation (it would be suspended at once); false: the consent stays AUTHORIZED until it expires, after consent.expiring, and the merchant renews it by hand (POST /v1/consents/{id}/reauthorise) if it wants to.',
  })
  @IsOptional()
  @IsBoolean()
  autoReauthorise?: boolean;
}
