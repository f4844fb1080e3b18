import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsUserReference } from '../../common/inputs/user-reference.js';
import { Omittable } from '../../common/omittable.js';

export class UpdateUserInput {
  @ApiPropertyOptional({
    description: 'A new merchant reference (409 if another user has it)',
  })
  @Omittable()
  @IsUserReference()
  reference?: string;

  @ApiPropertyOptional()
  @Omittable()
  @IsBoolean()
  vopOptOut?: boolean;
}
