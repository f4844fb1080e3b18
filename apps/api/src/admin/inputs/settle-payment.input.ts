import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { Omittable } from '../../common/omittable.js';

export class SettlePaymentInput {
  @ApiProperty({
    enum: ['COMPLETED', 'FAILED'],
    description: 'What the bank said: the money moved (COMPLETED) or it did not (FAILED)',
  })
  @IsIn(['COMPLETED', 'FAILED'])
  status: 'COMPLETED' | 'FAILED';

  @ApiPropertyOptional({
    description: 'Kept with the payment as its reason (who was asked, their reference)',
    maxLength: 500,
  })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  note?: string;
}
