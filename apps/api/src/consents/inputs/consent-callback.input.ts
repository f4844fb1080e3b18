import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * The upstream's redirect to our callback. Every parameter the upstream sends is declared; one it may add
 * later is dropped, not refused (`IgnoresUndeclaredQuery`). `bffState` is ours, forwarded untouched.
 */
export class ConsentCallbackInput {
  @ApiPropertyOptional({ description: 'Our signed state (forwarded parameter)' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  bffState?: string;

  @ApiPropertyOptional({ description: 'Single-use token exchanged upstream for the consent token' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  oneTimeToken?: string;

  @ApiPropertyOptional({ description: "The upstream's consent id" })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  consentId?: string;

  @ApiPropertyOptional({
    description: "The upstream's own state: the single-use proof of a re-authorisation's return",
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  state?: string;

  @ApiPropertyOptional({ example: 'access_denied' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  error?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  error_description?: string;

  @ApiPropertyOptional({ name: 'application-user-id' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  'application-user-id'?: string;

  @ApiPropertyOptional({ name: 'user-uuid' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  'user-uuid'?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  institution?: string;
}
