import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsString, Matches, ValidateNested } from 'class-validator';

/**
 * The API's one rule for money a merchant sends (payments, funds confirmation, VRP limits alike: the
 * domain checks each with `parseAmount` and the upstream takes each as a JSON number). The shape is
 * checked here: a decimal string above 0 with at most 13 digits before the point and 3 after it, the most
 * any currency has (KWD, BHD). The service then refuses more decimals than the currency's own and more
 * than 15 significant digits (what a JSON number carries exactly), never rounding.
 */
const AMOUNT = /^(?:0|[1-9]\d{0,12})(?:\.\d{1,3})?$/;
const ABOVE_ZERO = /[1-9]/;
const CURRENCY = /^[A-Z]{3}$/;

/** Both amount checks as the one pattern the document states (the look-ahead is `ABOVE_ZERO`). */
export const AMOUNT_PATTERN = `^(?=.*[1-9])${AMOUNT.source.slice(1)}`;

export class MoneyInput {
  @ApiProperty({
    example: '12.34',
    pattern: AMOUNT_PATTERN,
    description:
      'Decimal string, never a JSON number: greater than 0, at most 13 digits before the point and 3 after it; and at most the currency’s own decimals (2 for GBP, 0 for JPY, 3 for KWD) and 15 significant digits. Never rounded: more is refused.',
  })
  @IsString()
  @Matches(AMOUNT, { message: 'amount must be a decimal string with at most 3 decimals' })
  @Matches(ABOVE_ZERO, { message: 'amount must be greater than 0' })
  amount!: string;

  @ApiProperty({ example: 'GBP', pattern: CURRENCY.source, description: 'ISO 4217 code' })
  @IsString()
  @Matches(CURRENCY, { message: 'currency must be an ISO 4217 code' })
  currency!: string;
}

/** A money field of a request: a `MoneyInput`, required; `description` says what the amount is for. */
export const MoneyField = (description: string) =>
  applyDecorators(
    ApiProperty({ type: MoneyInput, description }),
    IsDefined(),
    IsObject(),
    ValidateNested(),
    Type(() => MoneyInput),
  );
