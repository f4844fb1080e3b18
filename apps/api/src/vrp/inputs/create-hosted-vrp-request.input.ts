import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { VRP_FREQUENCIES } from '#libs/domain/payments';
import {
  IsInstitutionId,
  IsPaymentReference,
  IsRedirectUrl,
  OptionalDateTime,
} from '../../common/field-rules.js';
import { MoneyField, MoneyInput } from '../../common/inputs/money.input.js';
import { PayeeField, PayeeInput } from '../../common/inputs/payee.input.js';

// The upstream's hosted commercial VRP request (its OpenAPI, postHostedCommercialVrpRequest): one periodic
// limit, and the risk details it requires. Lengths are the sandbox's, which are the upstream's where it
// states them.

export class HostedPeriodicLimitInput {
  @ApiProperty({ enum: VRP_FREQUENCIES, example: 'MONTHLY' })
  @IsIn(VRP_FREQUENCIES)
  frequency!: string;

  @MoneyField('The most paid in one period (periods start when the consent does)')
  totalMaxAmount!: MoneyInput;
}

export class HostedControlParametersInput {
  @MoneyField('The most one payment may be')
  maxAmountPerPayment!: MoneyInput;

  @ApiProperty({ type: HostedPeriodicLimitInput })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => HostedPeriodicLimitInput)
  periodicLimit!: HostedPeriodicLimitInput;

  @OptionalDateTime('Default: now')
  validFrom?: string;

  @OptionalDateTime('Default: open-ended (as long as the bank allows)')
  validTo?: string;
}

/** A risk code the upstream requires: a non-empty string of at most `maxLength` characters. */
const RiskCode = (maxLength: number, description: string, example: string) =>
  applyDecorators(
    ApiProperty({ maxLength, description, example }),
    IsString(),
    IsNotEmpty(),
    MaxLength(maxLength),
  );

export class HostedRiskDetailsInput {
  @RiskCode(
    50,
    'One of BillingGoodsAndServicesInAdvance, BillingGoodsAndServicesInArrears, EcommerceMerchantInitiatedPayment, FaceToFacePointOfSale, TransferToSelf, TransferToThirdParty',
    'BillingGoodsAndServicesInArrears',
  )
  paymentContextCode!: string;

  @RiskCode(10, 'An ISO 20022 ExternalPurpose1Code', 'GDSV')
  paymentPurposeCode!: string;

  @RiskCode(10, 'An ISO 20022 ExternalCategoryPurpose1Code', 'SUPP')
  categoryPurposeCode!: string;

  @ApiPropertyOptional({
    maxLength: 100,
    description: 'Your id for the customer. Default: the user’s id at the upstream (applicationUserId)',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  merchantCustomerId?: string;

  @ApiPropertyOptional({
    default: true,
    description: 'Whether you filled in the payee (true) rather than the user typing it',
  })
  @IsOptional()
  @IsBoolean()
  isPayeePrepopulated?: boolean;

  @ApiPropertyOptional({ maxLength: 50, example: 'Business', description: 'The payee account’s type' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  payeeAccountType?: string;
}

export class CreateHostedVrpRequestInput {
  @ApiProperty({ example: 'sandbox-payments', maxLength: 255 })
  @IsInstitutionId()
  institutionId!: string;

  @PayeeField('Where the payments go: your account')
  payee!: PayeeInput;

  @IsPaymentReference({
    required: false,
    example: 'Acme subscription',
    description: 'The reference of the payments made under the consent, shown on both statements',
  })
  reference?: string;

  @ApiProperty({ type: HostedControlParametersInput })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => HostedControlParametersInput)
  controlParameters!: HostedControlParametersInput;

  @ApiProperty({ type: HostedRiskDetailsInput })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => HostedRiskDetailsInput)
  riskDetails!: HostedRiskDetailsInput;

  @ApiProperty({
    example: 'https://app.acme.example/billing/connected',
    maxLength: 2048,
    description:
      'Where the hosted page sends the browser once the user has decided (one of your frontend origins). Then read the request (GET /v1/hosted/vrp-requests/{requestId}) for its status and consent.',
  })
  @IsRedirectUrl()
  redirectUrl!: string;
}
