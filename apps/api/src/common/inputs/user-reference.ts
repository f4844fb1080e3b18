import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

/**
 * A merchant's user reference: visible ASCII, at most 200. On the root application the upstream
 * applicationUserId is `<merchantId>:<reference>`, which must still fit the upstream's 255 characters.
 */
export const USER_REFERENCE = /^[\x21-\x7e]{1,200}$/;

/**
 * The rule, checked and documented from one place: the property's own `@ApiProperty` or
 * `@ApiPropertyOptional` (above it) says what it is for and whether it is required; this adds the shape.
 */
export const IsUserReference = () =>
  applyDecorators(
    ApiProperty({ pattern: USER_REFERENCE.source, minLength: 1, maxLength: 200 }),
    IsString(),
    Matches(USER_REFERENCE, { message: 'reference must be 1 to 200 visible ASCII characters' }),
  );
