import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { Omittable } from '../../common/omittable.js';

/** Exactly one of the two credentials (the controller says so when both or neither come). */
export class ConsoleSignInInput {
  @ApiPropertyOptional({ description: "A merchant's API key (`mk_…`): signs in as that merchant" })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  apiKey?: string;

  @ApiPropertyOptional({ description: 'The operator token (ADMIN_TOKEN): signs in as the operator' })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  operatorToken?: string;
}
