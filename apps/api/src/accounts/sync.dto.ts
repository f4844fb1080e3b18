import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export class StoredTransactionsQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Inclusive lower bound on `date`' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Exclusive upper bound on `date`' })
  @IsOptional()
  @IsISO8601({ strict: true })
  before?: string;

  @ApiPropertyOptional({ enum: ['date', '-date'], default: '-date' })
  @IsOptional()
  @IsIn(['date', '-date'])
  sort?: 'date' | '-date';

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ example: 'BOOKED', description: 'Only records of this upstream status' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z_]{1,64}$/, { message: 'status must be an upstream status such as BOOKED or PENDING' })
  status?: string;

  @ApiPropertyOptional({
    description:
      '`meta.nextCursor` of the previous page; send the same `from`, `before`, `status` and `sort` with it',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

export class SyncRequestedDto {
  @ApiProperty({ format: 'uuid', description: 'The queued or running sync of the account' }) syncId: string;
}

export class SyncWindowDto {
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Inclusive; null = all the consent allows',
  })
  from: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Exclusive: the run’s start',
  })
  before: string | null;
}

export class SyncProgressDto {
  @ApiProperty() pages: number;
  @ApiProperty() fetched: number;
  @ApiProperty() inserted: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() removed: number;
}

export class SyncErrorDto {
  @ApiProperty({ example: 'CONSENT_EXPIRED' }) code: string;
  @ApiProperty({ nullable: true, type: String }) message: string | null;
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    description: '{ upstreamKind, status, tracingId, institutionError } of the upstream failure',
  })
  upstream: unknown;
}

export class SyncRunDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) accountId: string;
  @ApiProperty({ enum: ['queued', 'running', 'succeeded', 'failed'] }) status: string;
  @ApiProperty({ enum: ['initial', 'scheduled', 'manual'] }) trigger: string;
  @ApiProperty({ type: SyncWindowDto }) window: SyncWindowDto;
  @ApiProperty({ type: SyncProgressDto }) progress: SyncProgressDto;
  @ApiProperty({ format: 'date-time' }) queuedAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) startedAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) finishedAt: string | null;
  @ApiProperty({ type: SyncErrorDto, nullable: true }) error: SyncErrorDto | null;
}
