import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ListQuery } from '../../common/paging.js';

export class ListInstitutionsInput extends ListQuery({ cursorMaxLength: 400 }) {
  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2 country code', example: 'GB' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: 'country must be an upper-case ISO 3166-1 alpha-2 code' })
  country?: string;

  @ApiPropertyOptional({ description: 'An upstream feature name', example: 'ACCOUNT_TRANSACTIONS' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z0-9_]{1,64}$/, { message: 'feature must be an upstream feature name' })
  feature?: string;

  @ApiPropertyOptional({ description: 'Part of the name, case-insensitive', maxLength: 100 })
  @IsOptional()
  @IsString()
  @Matches(/^\P{Cc}{1,100}$/u, { message: 'q must be 1 to 100 printable characters' })
  q?: string;
}
