import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, IsOptional } from 'class-validator';
import { IsRedirectUrl, OptionalDateTime } from '../../common/field-rules.js';
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

  @OptionalDateTime(
    'When the consent should end: in the future, capped at 90 days from now; omitted, 90 days from now',
  )
  expiresAt?: string;

  @OptionalDateTime()
  transactionsFrom?: string;

  @OptionalDateTime()
  transactionsTo?: string;

  @ApiPropertyOptional({
    maxLength: 2048,
    description: "Where the browser returns after the bank; omitted: the consent's current one",
  })
  @IsOptional()
  @IsRedirectUrl()
  redirectUrl?: string;
}
