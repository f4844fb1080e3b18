import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsUserReference } from '../../common/inputs/user-reference.js';
import { Omittable } from '../../common/omittable.js';

export class CreateUserInput {
  @ApiProperty({
    description: "The merchant's own user id; unique per merchant (create-or-return on it)",
    example: 'customer-42',
  })
  @IsUserReference()
  reference: string;

  @ApiPropertyOptional({ description: 'Opt the user out of Verification of Payee', default: false })
  @Omittable()
  @IsBoolean()
  vopOptOut?: boolean;
}
