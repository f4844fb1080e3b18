import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { MoneyField, MoneyInput } from '../../common/inputs/money.input.js';

export class ConfirmFundsInput {
  @ApiPropertyOptional({ maxLength: 18, example: 'Top-up' })
  @IsOptional()
  @IsString()
  @MaxLength(18)
  reference?: string;

  @MoneyField('As for a payment: a decimal string, never rounded')
  amount!: MoneyInput;
}
