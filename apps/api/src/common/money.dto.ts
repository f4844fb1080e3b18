import { ApiProperty } from '@nestjs/swagger';

export class MoneyViewDto {
  @ApiProperty({ example: '12.34' }) amount: string;
  @ApiProperty({ example: 'GBP' }) currency: string;
}
