import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsCallbackUrl, OptionalNested, RequiredNested } from '../core/index.js';
import {
  AmountDto,
  AuthorisationRequestBase,
  PayeeDto,
  PayerDto,
  PSU_AUTHENTICATION_METHODS,
} from './payments.dto.js';

/** Request bodies of the VRP and hosted VRP operations, after the upstream's OpenAPI. */

export const VRP_FREQUENCIES = ['DAILY', 'WEEKLY', 'EVERY_TWO_WEEKS', 'MONTHLY', 'YEARLY'] as const;
export const VRP_ALIGNMENTS = ['CONSENT', 'CALENDAR'] as const;
export type VrpFrequency = (typeof VRP_FREQUENCIES)[number];
export type VrpAlignment = (typeof VRP_ALIGNMENTS)[number];

export class VrpPeriodicLimitDto {
  @IsDefined() @IsIn(VRP_FREQUENCIES) frequency: VrpFrequency;

  @RequiredNested(() => AmountDto) totalMaxAmount: AmountDto;

  @IsDefined() @IsIn(VRP_ALIGNMENTS) alignment: VrpAlignment;
}

export class VrpControlParametersDto {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(PSU_AUTHENTICATION_METHODS, { each: true })
  psuAuthenticationMethods: string[];

  @RequiredNested(() => AmountDto) maxAmountPerPayment: AmountDto;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => VrpPeriodicLimitDto)
  periodicLimits: VrpPeriodicLimitDto[];

  @IsOptional() @IsISO8601() validFrom?: string;
  @IsOptional() @IsISO8601() validTo?: string;
}

export class VrpInitiationDetailsDto {
  @IsOptional() @IsString() @MaxLength(18) reference?: string;

  @OptionalNested(() => PayerDto) payer?: PayerDto;

  @OptionalNested(() => PayeeDto) payee?: PayeeDto;

  @IsOptional() @IsObject() ultimatePayer?: Record<string, unknown>;
  @IsOptional() @IsObject() ultimatePayee?: Record<string, unknown>;
}

export class VrpSweepingAuthorisationRequestDto extends AuthorisationRequestBase {
  @RequiredNested(() => VrpControlParametersDto) controlParameters: VrpControlParametersDto;

  @RequiredNested(() => VrpInitiationDetailsDto) initiationDetails: VrpInitiationDetailsDto;

  @IsOptional() @IsObject() complianceData?: Record<string, unknown>;
}

export class VrpFundsConfirmationRequestDto {
  @IsOptional() @IsString() @MaxLength(18) reference?: string;

  @RequiredNested(() => AmountDto) paymentAmount: AmountDto;
}

export class VrpSubmissionRequestDto {
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(35)
  paymentIdempotencyId: string;

  @IsDefined() @IsIn(PSU_AUTHENTICATION_METHODS) psuAuthenticationMethod: string;
  @IsOptional() @IsIn(['PSU_PRESENT', 'PSU_NOT_PRESENT']) psuInteractionType?: string;

  @RequiredNested(() => AmountDto) paymentAmount: AmountDto;
}

export class HostedInstitutionIdentifiersDto {
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  institutionId: string;

  @IsOptional() @IsString() @Length(2, 2) institutionCountryCode?: string;
}

export class HostedVrpPeriodicLimitDto {
  @IsDefined() @IsIn(VRP_FREQUENCIES) frequency: VrpFrequency;

  @RequiredNested(() => AmountDto) totalMaxAmount: AmountDto;
}

export class HostedVrpControlParametersDto {
  @RequiredNested(() => AmountDto) maxAmountPerPayment: AmountDto;

  @RequiredNested(() => HostedVrpPeriodicLimitDto) periodicLimit: HostedVrpPeriodicLimitDto;

  @IsOptional() @IsISO8601() validFrom?: string;
  @IsOptional() @IsISO8601() validTo?: string;
}

export class HostedVrpRiskDetailsDto {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(50) paymentContextCode: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(10) paymentPurposeCode: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(10) categoryPurposeCode: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(100) merchantCustomerId: string;
  @IsDefined() @IsBoolean() isPayeePrepopulated: boolean;
  @IsOptional() @IsString() @MaxLength(50) payeeAccountType?: string;
}

export class HostedVrpRequestDto {
  @IsOptional() @IsUUID() userId?: string;

  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  applicationUserId: string;

  @IsOptional() @IsObject() userSettings?: { language?: string; location?: string };

  @RequiredNested(() => HostedInstitutionIdentifiersDto)
  institutionIdentifiers: HostedInstitutionIdentifiersDto;

  @RequiredNested(() => HostedVrpControlParametersDto) controlParameters: HostedVrpControlParametersDto;

  @OptionalNested(() => VrpInitiationDetailsDto) initiationDetails?: VrpInitiationDetailsDto;

  @IsDefined() @IsCallbackUrl() redirectUrl: string;
  @IsOptional() @IsBoolean() oneTimeToken?: boolean;

  @RequiredNested(() => HostedVrpRiskDetailsDto) riskDetails: HostedVrpRiskDetailsDto;
}
