import { applyDecorators } from '@nestjs/common';
import { IsString, Matches } from 'class-validator';

/**
 * A merchant's user reference: visible ASCII, at most 200. On the root application the upstream
 * applicationUserId is `<merchantId>:<reference>`, which must still fit the upstream's 255 characters.
 */
export const IsUserReference = () =>
  applyDecorators(
    IsString(),
    Matches(/^[\x21-\x7e]{1,200}$/, { message: 'reference must be 1 to 200 visible ASCII characters' }),
  );
