import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '#libs/http';

// One rule per kind of field, so every consent body validates it the same way.
export const IsRedirectUrl = () =>
  applyDecorators(
    IsString(),
    MaxLength(2048),
    IsUrl(
      { require_protocol: true, protocols: ['http', 'https'], require_tld: false },
      { message: 'redirectUrl must be an absolute http(s) URL' },
    ),
  );
const IsScopes = () =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(30),
    IsString({ each: true }),
    Matches(/^[A-Z_]{1,64}$/, { each: true, message: 'each scope must be an upstream feature name' }),
  );
export const IsInstitutionId = () =>
  applyDecorators(
    IsString(),
    Matches(/^[A-Za-z0-9._-]{1,255}$/, { message: 'institutionId must be an institution id' }),
  );
export const IsOptionalDateTime = () => applyDecorators(IsOptional(), IsISO8601({ strict: true }));

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

/**
 * The upstream's redirect to our callback. Every parameter the upstream sends is declared (unknown ones
 * are refused like anywhere else); `bffState` is ours, forwarded by the upstream untouched.
 */
export class ConsentCallbackQueryDto {
  @ApiPropertyOptional({ description: 'Our signed state (forwarded parameter)' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  bffState?: string;

  @ApiPropertyOptional({ description: 'Single-use token exchanged upstream for the consent token' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  oneTimeToken?: string;

  @ApiPropertyOptional({ description: "The upstream's consent id" })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  consentId?: string;

  @ApiPropertyOptional({
    description: "The upstream's own state: the single-use proof of a re-authorisation's return",
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  state?: string;

  @ApiPropertyOptional({ example: 'access_denied' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  error?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  error_description?: string;

  @ApiPropertyOptional({ name: 'application-user-id' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  'application-user-id'?: string;

  @ApiPropertyOptional({ name: 'user-uuid' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  'user-uuid'?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  institution?: string;
}

/** `cursorMinLength`: an empty cursor is reported as too short, as before the shared base. */
export class ListQueryDto extends PageQuery({ cursorMinLength: true }) {}

export class CreatedConsentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_AUTHORIZATION' }) status: string;
  @ApiProperty({ description: "The bank's page: send the user's browser here" }) authorisationUrl: string;
  @ApiProperty() institutionId: string;
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
}

export class ConsentSyncDto {
  @ApiProperty({
    enum: ['none', 'pending', 'syncing', 'synced', 'failed', 'stopped'],
    description: 'The least advanced state among the consent’s accounts (`none`: no accounts yet)',
  })
  status: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the least recently synced account was last synced (null until every account has been)',
  })
  lastSyncedAt: string | null;
}

export class ConsentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    enum: ['ACCOUNT', 'PAYMENT', 'VRP_SWEEPING'],
    description: 'ACCOUNT: financial data; PAYMENT: one single payment; VRP_SWEEPING: payments within limits',
  })
  kind: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty() institutionId: string;
  @ApiProperty({
    description:
      'Upstream status, verbatim (AWAITING_AUTHORIZATION, AUTHORIZED, REJECTED, REVOKED, EXPIRED, FAILED, …)',
  })
  status: string;
  @ApiProperty({ type: [String] }) featureScope: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) authorizedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt: string | null;
  @ApiPropertyOptional({ description: 'While AWAITING_AUTHORIZATION' }) authorisationUrl?: string;
  @ApiPropertyOptional({ description: 'When a re-authorisation is pending' }) reauthorisationUrl?: string;
  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'When a completed re-authorisation did not extend the consent (the bank kept expiresAt, or left it within the warning window): no re-authorisation is asked for automatically any more; connect the bank again to keep the data flowing. Absent once an authorisation extends it.',
  })
  reauthorisationNotExtendedAt?: string;
  @ApiPropertyOptional({
    type: ConsentSyncDto,
    description: 'GET /v1/consents/{id} only: how fresh the data of the consent’s accounts is',
  })
  sync?: ConsentSyncDto;
}

export class MoneyDto {
  @ApiProperty({ example: '12.34', description: 'Decimal string, never a float' }) amount: string;
  @ApiProperty({ example: 'GBP' }) currency: string;
}

export class BalanceDto {
  @ApiProperty({ example: 'INTERIM_AVAILABLE' }) type: string;
  @ApiProperty({ type: MoneyDto }) balance: MoneyDto;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) dateTime: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) creditLineIncluded: boolean | null;
}

export class SyncSummaryDto {
  @ApiProperty({
    enum: ['pending', 'syncing', 'synced', 'failed', 'stopped'],
    description: 'Lower case, like the consent’s `sync.status` (`stopped`: the consent no longer allows it)',
  })
  status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastSyncedAt: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the scheduled sync next falls due (null: stopped)',
  })
  nextSyncAt: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last sync failed or stopped; null after a success',
  })
  lastError: string | null;
}

export class AccountDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty({ format: 'uuid' }) consentId: string;
  @ApiProperty() institutionId: string;
  @ApiProperty({ description: 'The upstream’s account id (quote it to the upstream’s support)' })
  upstreamAccountId: string;
  @ApiProperty({ type: String, nullable: true }) type: string | null;
  @ApiProperty({ type: String, nullable: true }) usageType: string | null;
  @ApiProperty({ type: String, nullable: true }) currency: string | null;
  @ApiProperty({ type: String, nullable: true }) nickname: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  accountNames: unknown;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  accountIdentifications: unknown;
  @ApiProperty({ type: [BalanceDto] }) balances: BalanceDto[];
  @ApiProperty({ type: SyncSummaryDto }) sync: SyncSummaryDto;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

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
