import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';
import { PageQueryDto } from '#libs/http';
import { Omittable } from '../common/omittable.js';

/**
 * Visible ASCII, at most 200: on the root application the upstream applicationUserId is
 * `<merchantId>:<reference>`, which must still fit the upstream's 255 characters.
 */
const REFERENCE = /^[\x21-\x7e]{1,200}$/;
const REFERENCE_MESSAGE = 'reference must be 1 to 200 visible ASCII characters';

export class CreateUserDto {
  @ApiProperty({
    description: "The merchant's own user id; unique per merchant (create-or-return on it)",
    example: 'customer-42',
    maxLength: 200,
  })
  @IsString()
  @Matches(REFERENCE, { message: REFERENCE_MESSAGE })
  reference: string;

  @ApiPropertyOptional({ description: 'Opt the user out of Verification of Payee', default: false })
  @Omittable()
  @IsBoolean()
  vopOptOut?: boolean;
}

export class UpdateUserDto {
  @ApiPropertyOptional({
    description: 'A new merchant reference (409 if another user has it)',
    maxLength: 200,
  })
  @Omittable()
  @IsString()
  @Matches(REFERENCE, { message: REFERENCE_MESSAGE })
  reference?: string;

  @ApiPropertyOptional()
  @Omittable()
  @IsBoolean()
  vopOptOut?: boolean;
}

export class UsersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: 'Find the one user with this reference (404 if none); limit and cursor are then ignored',
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @Matches(REFERENCE, { message: REFERENCE_MESSAGE })
  reference?: string;
}

export class UserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() reference: string;
  @ApiProperty() vopOptOut: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class UserSessionDto {
  @ApiProperty({ description: 'Bearer token (`us_…`) for this user only; give it to their browser' })
  token: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}
