import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsPaymentReference } from '../../common/field-rules.js';
import { MoneyField, MoneyInput } from '../../common/inputs/money.input.js';

export class CreateVrpPaymentInput {
  @MoneyField('A decimal string of the consent’s currency, never rounded')
  amount!: MoneyInput;

  @ApiPropertyOptional({ maxLength: 18, example: 'Sweep' })
  @IsOptional()
  @IsString()
  @MaxLength(18)
  @IsPaymentReference()
  reference?: string;
}
