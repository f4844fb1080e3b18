import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MoneyViewDto } from '../common/money.dto.js';
import { PaymentAmountDto } from '../common/payment.dto.js';

export class FundsConfirmationDto {
  @ApiPropertyOptional({ maxLength: 18, example: 'Top-up' })
  @IsOptional()
  @IsString()
  @MaxLength(18)
  reference?: string;

  @ApiProperty({ type: PaymentAmountDto, description: 'As for a payment: a decimal string, never rounded' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentAmountDto)
  amount!: PaymentAmountDto;
}

export class FundsConfirmationViewDto {
  @ApiProperty({ nullable: true, type: String }) id!: string | null;
  @ApiProperty({ nullable: true, type: String }) reference!: string | null;
  @ApiProperty({ type: MoneyViewDto }) amount!: MoneyViewDto;
  @ApiProperty() fundsAvailable!: boolean;
  @ApiProperty({ nullable: true, type: String }) fundsAvailableAt!: string | null;
}
