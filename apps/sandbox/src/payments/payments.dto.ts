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
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsCallbackUrl, IsMoneyAmount, OptionalNested, RequiredNested } from '../core/index.js';

/**
 * Request bodies of the single-payment operations, after the upstream's OpenAPI, and the parts the VRP
 * ones (vrp.dto.ts) share with them: amounts, payee and payer, the authorisation request's fields.
 */

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
export class AuthorisationRequestBase {
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

export class ForcePaymentStatusDto {
  @IsDefined() @IsIn(FORCEABLE_PAYMENT_STATUSES) status: (typeof FORCEABLE_PAYMENT_STATUSES)[number];
  @IsOptional() @IsString() @MaxLength(100) statusReason?: string;
  @IsOptional() @IsString() @MaxLength(500) statusReasonDescription?: string;
}
