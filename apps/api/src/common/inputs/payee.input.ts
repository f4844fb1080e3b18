import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsObject,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';

export class AccountIdentificationInput {
  @ApiProperty({ example: 'SORT_CODE', description: 'SORT_CODE, ACCOUNT_NUMBER, IBAN, BBAN, PAN, …' })
  @IsString()
  @Matches(/^[A-Z_]{2,32}$/, { message: 'type must be an upstream identification type such as SORT_CODE' })
  type!: string;

  @ApiProperty({ example: '123456', maxLength: 64 })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  identification!: string;
}

/** Whom a payment or a sweeping VRP consent pays. */
export class PayeeInput {
  @ApiProperty({ example: 'Jane Saver', maxLength: 140 })
  @IsString()
  @MinLength(1)
  @MaxLength(140)
  name!: string;

  @ApiProperty({
    type: [AccountIdentificationInput],
    description: 'A UK domestic payee: SORT_CODE (6 digits) and ACCOUNT_NUMBER (8 digits)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => AccountIdentificationInput)
  accountIdentifications!: AccountIdentificationInput[];
}

/** The payee field of a request, required. */
export const PayeeField = (description?: string) =>
  applyDecorators(
    ApiProperty({ type: PayeeInput, ...(description ? { description } : {}) }),
    IsDefined(),
    IsObject(),
    ValidateNested(),
    Type(() => PayeeInput),
  );
