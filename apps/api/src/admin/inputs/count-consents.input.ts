import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, Matches } from 'class-validator';

export class CountConsentsInput {
  @ApiPropertyOptional({ example: 'AUTHORIZED', description: 'Only consents in this status' })
  @IsOptional()
  @Matches(/^[A-Z_]{1,64}$/, { message: 'status must be a consent status such as AUTHORIZED' })
  status?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only consents expiring before this time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiringBefore?: string;
}
