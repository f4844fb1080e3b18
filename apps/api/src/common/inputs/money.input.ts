import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsObject, IsString, ValidateBy, ValidateNested } from 'class-validator';
import { PAYMENT_CURRENCIES } from '#libs/currency';
import {
  AMOUNT_MAX_LENGTH,
  amountIssue,
  MAX_AMOUNT,
  MAX_SIGNIFICANT_DIGITS,
  MAX_WHOLE_DIGITS,
  MOST_DECIMALS,
} from '#libs/domain/payments';

/**
 * The API's one rule for money a merchant sends (payments, funds confirmation, VRP limits alike). The
 * amount is checked by `amountIssue`, the very rule `parseAmount` applies in the domain: what passes
 * here is exactly what the code parses, and a refusal says why (docs/api-guide.md, Payments).
 */
/**
 * The shape the document states, which every accepted amount has: a plain decimal above zero, at most
 * 9 digits before the point and 3 after it. The currency's own decimals and the maximum are in words.
 */
export const AMOUNT_PATTERN = `^(?=.*[1-9])(?:0|[1-9]\\d{0,${MAX_WHOLE_DIGITS - 1}})(?:\\.\\d{1,${MOST_DECIMALS}})?$`;

export class MoneyInput {
  @ApiProperty({
    example: '12.34',
    pattern: AMOUNT_PATTERN,
    maxLength: AMOUNT_MAX_LENGTH,
    description: [
      'A decimal string, never rounded. Refused with 400 and the first of these reasons in `details[].issue`:',
      'not a string (a JSON number is refused);',
      'not a plain decimal, digits with an optional point (e.g. 12.34): no sign, no exponent, ASCII digits only, no leading zeros, no spaces;',
      'not greater than zero;',
      'more decimals than the currency has (2 for GBP and EUR, 0 for JPY, 3 for KWD);',
      `over the upstream's maximum: at most ${MAX_AMOUNT};`,
      `more than ${MAX_SIGNIFICANT_DIGITS} significant digits.`,
    ].join(' '),
  })
  @ValidateBy({
    name: 'isAmount',
    validator: {
      validate: (value: unknown, args) =>
        amountIssue(value, (args?.object as Partial<MoneyInput> | undefined)?.currency) === undefined,
      defaultMessage: (args) =>
        amountIssue(args?.value, (args?.object as Partial<MoneyInput> | undefined)?.currency) ?? '',
    },
  })
  amount!: string;

  @ApiProperty({
    example: 'GBP',
    enum: PAYMENT_CURRENCIES,
    description: 'An active ISO 4217 currency: not a funds, metal, test or "no currency" code (XXX)',
  })
  @IsString()
  @IsIn(PAYMENT_CURRENCIES, { message: 'currency must be an active ISO 4217 payment currency' })
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
