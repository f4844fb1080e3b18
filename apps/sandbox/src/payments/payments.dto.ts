import { applyDecorators } from '@nestjs/common';
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
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsCallbackUrl, IsMoneyAmount, OptionalNested, RequiredNested } from '../core/index.js';

/** Request bodies of the payment, VRP and hosted VRP operations, after the upstream's OpenAPI. */

export const ACCOUNT_IDENTIFICATION_TYPES = [
  'SORT_CODE',
  'ACCOUNT_NUMBER',
  'IBAN',
  'BBAN',
  'BIC',
  'PAN',
  'MASKED_PAN',
  'MSISDN',
  'BSB',
  'NCC',
  'ABA',
  'ABA_WIRE',
  'ABA_ACH',
  'EMAIL',
  'ROLL_NUMBER',
  'BLZ',
  'IFS',
  'CLABE',
  'CTN',
  'BRANCH_CODE',
  'VIRTUAL_ACCOUNT_ID',
] as const;

export const PAYMENT_TYPES = [
  'DOMESTIC_PAYMENT',
  'DOMESTIC_INSTANT_PAYMENT',
  'DOMESTIC_VARIABLE_RECURRING_PAYMENT',
  'DOMESTIC_SCHEDULED_PAYMENT',
  'DOMESTIC_PERIODIC_PAYMENT',
  'INTERNATIONAL_PAYMENT',
  'INTERNATIONAL_SCHEDULED_PAYMENT',
  'INTERNATIONAL_PERIODIC_PAYMENT',
  'BULK_PAYMENT',
] as const;

export const PAYMENT_CONTEXT_TYPES = [
  'BILL',
  'GOODS',
  'SERVICES',
  'OTHER',
  'PERSON_TO_PERSON',
  'BILL_IN_ADVANCE',
  'BILL_IN_ARREARS',
  'ECOMMERCE_MERCHANT',
  'FACE_TO_FACE_POS',
  'TRANSFER_TO_SELF',
  'TRANSFER_TO_THIRD_PARTY',
  'PISP_PAYEE',
] as const;

export const PSU_AUTHENTICATION_METHODS = ['SCA_REQUIRED', 'SCA_NOT_REQUIRED'] as const;
export const VRP_FREQUENCIES = ['DAILY', 'WEEKLY', 'EVERY_TWO_WEEKS', 'MONTHLY', 'YEARLY'] as const;
export const VRP_ALIGNMENTS = ['CONSENT', 'CALENDAR'] as const;
export type VrpFrequency = (typeof VRP_FREQUENCIES)[number];
export type VrpAlignment = (typeof VRP_ALIGNMENTS)[number];

/** Terminal statuses the control API may force a payment into. */
export const FORCEABLE_PAYMENT_STATUSES = ['COMPLETED', 'FAILED', 'DECLINED', 'EXPIRED'] as const;

export class AmountDto {
  @IsDefined()
  @IsMoneyAmount()
  amount: number;

  @IsDefined()
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: '$property must be an ISO 4217 code of 3 capital letters' })
  currency: string;
}

export class AccountIdentificationDto {
  @IsDefined()
  @IsIn(ACCOUNT_IDENTIFICATION_TYPES)
  type: string;

  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(140)
  identification: string;
}

/*
 * How a payee or a payer is identified: one to ten account identifications. Listed in the order a
 * stacked `@IsDefined() @IsArray() … @Type(...)` applies them (bottom up), so the issues keep their order.
 */
function AccountIdentifications(): PropertyDecorator {
  return applyDecorators(
    Type(() => AccountIdentificationDto),
    ValidateNested({ each: true }),
    ArrayMaxSize(10),
    ArrayMinSize(1),
    IsArray(),
    IsDefined(),
  );
}

export class PayeeDto {
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(140)
  name: string;

  @AccountIdentifications() accountIdentifications: AccountIdentificationDto[];

  @IsOptional() @IsString() @MaxLength(50) accountType?: string;
  @IsOptional() @IsObject() address?: Record<string, unknown>;
  @IsOptional() @IsString() @MaxLength(100) merchantId?: string;

  @IsOptional()
  @Matches(/^\d{4}$/, { message: '$property must be a 4-digit ISO 18245 code' })
  merchantCategoryCode?: string;
}

export class PayerDto {
  @IsOptional() @IsString() @MaxLength(140) name?: string;

  @AccountIdentifications() accountIdentifications: AccountIdentificationDto[];

  @IsOptional() @IsObject() address?: Record<string, unknown>;
}

export class PaymentRequestDto {
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(35)
  paymentIdempotencyId: string;

  @IsDefined()
  @IsIn(PAYMENT_TYPES)
  type: string;

  @IsOptional() @IsString() @MaxLength(18) reference?: string;
  @IsOptional() @IsIn(PAYMENT_CONTEXT_TYPES) contextType?: string;
  @IsOptional() @IsString() @MaxLength(4) purposeCode?: string;

  @RequiredNested(() => PayeeDto) payee: PayeeDto;

  @OptionalNested(() => PayerDto) payer?: PayerDto;

  @RequiredNested(() => AmountDto) amount: AmountDto;

  @IsOptional() @IsISO8601() paymentDateTime?: string;
  @IsOptional() @IsBoolean() readRefundAccount?: boolean;
  @IsOptional() @IsObject() periodicPayment?: Record<string, unknown>;
  @IsOptional() @IsObject() internationalPayment?: Record<string, unknown>;
}

export class RedirectDto {
  @IsDefined() @IsCallbackUrl() url: string;
}

/** The user and redirect fields every authorisation request shares. */
class AuthorisationRequestBase {
  @IsOptional() @IsUUID() userUuid?: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(250) applicationUserId?: string;

  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  institutionId: string;

  @IsOptional() @IsCallbackUrl() callback?: string;

  @OptionalNested(() => RedirectDto) redirect?: RedirectDto;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  forwardParameters?: string[];

  @IsOptional() @IsBoolean() oneTimeToken?: boolean;
}

export class PaymentAuthorisationRequestDto extends AuthorisationRequestBase {
  @RequiredNested(() => PaymentRequestDto) paymentRequest: PaymentRequestDto;
}

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

export class ForcePaymentStatusDto {
  @IsDefined() @IsIn(FORCEABLE_PAYMENT_STATUSES) status: (typeof FORCEABLE_PAYMENT_STATUSES)[number];
  @IsOptional() @IsString() @MaxLength(100) statusReason?: string;
  @IsOptional() @IsString() @MaxLength(500) statusReasonDescription?: string;
}
