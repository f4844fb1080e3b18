import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { Omittable } from '../omittable.js';

export class RotateApiKeyInput {
  @ApiPropertyOptional({ description: 'A label to tell keys apart', maxLength: 255 })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name?: string;
}
