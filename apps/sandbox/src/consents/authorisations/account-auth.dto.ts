import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
} from 'class-validator';
import { IsCallbackUrl, OptionalNested } from '../../core/index.js';

export const SCA_METHOD_TYPES = ['SMS_OTP', 'CHIP_OTP', 'PHOTO_OTP', 'PUSH_OTP'] as const;

/** AccountRequest: what the PSU is asked to grant. */
export class AccountRequestDto {
  @IsOptional() @IsISO8601({ strict: true }) transactionFrom?: string;
  @IsOptional() @IsISO8601({ strict: true }) transactionTo?: string;
  @IsOptional() @IsISO8601({ strict: true }) expiresAt?: string;
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  featureScope?: string[];
}

export class RedirectDto {
  @IsCallbackUrl() url: string;
}

/** AccountAuthorisationRequest (upstream spec §2.5). */
export class AccountAuthorisationRequestDto {
  @IsString() @IsNotEmpty() @MaxLength(100) institutionId: string;
  @IsOptional() @IsUUID() userUuid?: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(255) applicationUserId?: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  forwardParameters?: string[];
  @IsOptional() @IsCallbackUrl() @MaxLength(2000) callback?: string;
  @OptionalNested(() => RedirectDto) redirect?: RedirectDto;
  @IsOptional() @IsBoolean() oneTimeToken?: boolean;
  @OptionalNested(() => AccountRequestDto) accountRequest?: AccountRequestDto;
}

export class UserCredentialsDto {
  @IsString() @IsNotEmpty() @MaxLength(100) id: string;
  @IsOptional() @IsString() @MaxLength(100) corporateId?: string;
  @IsString() @IsNotEmpty() @MaxLength(200) password: string;
}

export class ScaMethodDto {
  @IsString() @IsNotEmpty() @MaxLength(100) id: string;
  @IsOptional() @IsIn(SCA_METHOD_TYPES) type?: string;
  @IsOptional() @IsString() @MaxLength(200) description?: string;
}

/** EmbeddedAccountAuthorisationRequest: the account request plus the embedded-flow steps. */
export class EmbeddedAccountAuthorisationRequestDto extends AccountAuthorisationRequestDto {
  @OptionalNested(() => UserCredentialsDto) userCredentials?: UserCredentialsDto;
  @OptionalNested(() => ScaMethodDto) selectedScaMethod?: ScaMethodDto;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(50) scaCode?: string;
}
