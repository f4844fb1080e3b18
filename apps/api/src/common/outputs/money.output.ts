import { ApiProperty } from '@nestjs/swagger';

/** An amount as answered, a decimal string: balances, financial data, payments and VRP alike. */
export class MoneyOutput {
  @ApiProperty({ example: '12.34', description: 'Decimal string, never a float' }) amount: string;
  @ApiProperty({ example: 'GBP' }) currency: string;
}
