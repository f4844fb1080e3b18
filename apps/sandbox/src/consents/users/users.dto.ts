import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/** NewApplicationUser. */
export class NewUserDto {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(255) applicationUserId?: string;
  @IsOptional() @IsString() @MaxLength(255) referenceId?: string;
  @IsOptional() @IsBoolean() vopOptOut?: boolean;
}

export class UsersQueryDto {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? (value as unknown[]) : [value]))
  @IsString({ each: true })
  'filter[applicationUserId]'?: string[];
}

export const PATCHABLE_USER_PATHS = ['/applicationUserId', '/referenceId', '/vopOptOut'] as const;

/** One operation of the JSON-patch document PATCH /users/{userUuid} takes (ApplicationUserPatchRequest). */
export class UserPatchOperationDto {
  /** The upstream documents `add` and `replace` (both set the value) and requires one of them. */
  @IsIn(['add', 'replace'], { message: "op must be 'add' or 'replace'" }) op: 'add' | 'replace';
  @IsString()
  @IsIn(PATCHABLE_USER_PATHS, {
    message: `path must be one of ${PATCHABLE_USER_PATHS.join(', ')}`,
  })
  path: (typeof PATCHABLE_USER_PATHS)[number];
  /** Always a string upstream (ApplicationUserPatchRequest.value), `"true"`/`"false"` for /vopOptOut. */
  @IsString({ message: 'value must be a string' }) value: string;
}
