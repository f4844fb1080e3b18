import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, IsOptional } from 'class-validator';
import { IsOptionalDateTime, IsRedirectUrl } from '../../common/field-rules.js';
import { IsScopes } from './create-consent.input.js';

export class UpdatePreAuthorisationInput {
  @ApiProperty({
    type: [String],
    example: ['ACCOUNTS', 'ACCOUNT_BALANCES'],
    description: 'The new upstream features of the consent',
    minItems: 1,
    maxItems: 30,
  })
  @ArrayMinSize(1)
  @IsScopes()
  scopes: string[];

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  expiresAt?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  transactionsFrom?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalDateTime()
  transactionsTo?: string;

  @ApiPropertyOptional({
    maxLength: 2048,
    description: "Where the browser returns after the bank; omitted: the consent's current one",
  })
  @IsOptional()
  @IsRedirectUrl()
  redirectUrl?: string;
}
