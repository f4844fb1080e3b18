import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MoneyOutput } from '../../common/outputs/money.output.js';

/** A transaction record as the upstream writes it (stored, live or categorised), amounts as decimal strings. */
export class TransactionOutput {
  @ApiPropertyOptional() id?: string;
  @ApiPropertyOptional({ format: 'date-time' }) date?: string;
  @ApiPropertyOptional() status?: string;
  @ApiPropertyOptional({ example: '-12.34', description: 'Decimal string' }) amount?: string;
  @ApiPropertyOptional() currency?: string;
  @ApiPropertyOptional({
    type: MoneyOutput,
    description: 'Every other upstream field is passed on; each `amount` is a decimal string',
  })
  transactionAmount?: MoneyOutput;
  @ApiPropertyOptional() description?: string;
}

export class CategorisationOutput {
  @ApiProperty() categorisationId: string;
  @ApiProperty({ type: [TransactionOutput] }) transactions: TransactionOutput[];
}
