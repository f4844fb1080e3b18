import { ApiProperty } from '@nestjs/swagger';

/** An amount as answered, a decimal string: in financial data and in payments. */
export class MoneyViewDto {
  @ApiProperty({ example: '12.34' }) amount: string;
  @ApiProperty({ example: 'GBP' }) currency: string;
}
