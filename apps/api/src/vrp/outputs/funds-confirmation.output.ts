import { ApiProperty } from '@nestjs/swagger';
import { MoneyOutput } from '../../common/outputs/money.output.js';

export class FundsConfirmationOutput {
  @ApiProperty({ nullable: true, type: String }) id!: string | null;
  @ApiProperty({ nullable: true, type: String }) reference!: string | null;
  @ApiProperty({ type: MoneyOutput }) amount!: MoneyOutput;
  @ApiProperty() fundsAvailable!: boolean;
  @ApiProperty({ nullable: true, type: String }) fundsAvailableAt!: string | null;
}
