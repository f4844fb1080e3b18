import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';

export class CategoriseTransactionsInput {
  @ApiProperty({ enum: ['consumer', 'business'] })
  @IsIn(['consumer', 'business'])
  categorisationType: 'consumer' | 'business';

  @ApiPropertyOptional({
    example: 'GB',
    description:
      "ISO 3166-1 alpha-2 country the upstream categorises for (it requires one). Default: the institution's country.",
  })
  @IsOptional()
  @Matches(/^[A-Z]{2}$/, { message: 'countryCode must be an ISO 3166-1 alpha-2 code, e.g. GB' })
  countryCode?: string;
}
