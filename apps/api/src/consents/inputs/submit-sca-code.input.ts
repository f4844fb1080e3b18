import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class SubmitScaCodeInput {
  @ApiProperty({ example: '123456', description: 'Single use; sent straight to the upstream', maxLength: 64 })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  code: string;
}
