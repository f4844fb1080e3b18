import { ApiProperty } from '@nestjs/swagger';
import { HEALTH_HOURLY_MAX_DAYS, INSTITUTION_ERROR_KINDS } from '#libs/domain/upstream-calls';

export class InstitutionHealthFiguresOutput {
  @ApiProperty({ example: 'sandbox-redirect' }) institutionId!: string;
  @ApiProperty({
    description: 'Attempts of calls made to the institution (each retry is one), from the upstream call log.',
  })
  calls!: number;
  @ApiProperty({
    description: `Of those, the bank's or the upstream's failures: error code ${INSTITUTION_ERROR_KINDS.join(', ')} (a 424, a 5xx or 408, no answer at all, a 429, an answer that could not be read). A refusal of what was asked (a 4xx: CALLER, AUTH, NOT_FOUND, FORBIDDEN, CONSENT_*) is no error of the bank's.`,
  })
  errors!: number;
  @ApiProperty({ description: 'errors / calls, from 0 to 1.', example: 0.02 })
  errorRate!: number;
  @ApiProperty({
    type: 'integer',
    description:
      "The 95th percentile of the attempts' durations in milliseconds: percentile_disc, so the duration one attempt took (the smallest that at least 95% of them did not exceed).",
  })
  p95DurationMs!: number;
}

export class InstitutionHealthBucketOutput extends InstitutionHealthFiguresOutput {
  @ApiProperty({
    format: 'date-time',
    description: 'The first instant of the bucket: an hour or a day (UTC), as `bucket` says.',
    example: '2026-11-23T10:00:00Z',
  })
  start!: string;
}

export class InstitutionHealthOutput {
  @ApiProperty({ format: 'date', description: 'The first day counted (UTC), included.' }) from!: string;
  @ApiProperty({ format: 'date', description: 'The last day counted (UTC), included.' }) to!: string;
  @ApiProperty({
    enum: ['hour', 'day'],
    description: `How long each of \`buckets\` is: an hour for a range of up to ${HEALTH_HOURLY_MAX_DAYS} days, else a day.`,
  })
  bucket!: 'hour' | 'day';
  @ApiProperty({
    type: [InstitutionHealthFiguresOutput],
    description: 'The whole range, a row an institution called in it, by institution id.',
  })
  institutions!: InstitutionHealthFiguresOutput[];
  @ApiProperty({
    type: [InstitutionHealthBucketOutput],
    description:
      'The same a bucket, for the trend: a row a bucket and institution with calls in it (a bucket without calls has no row), by start then institution.',
  })
  buckets!: InstitutionHealthBucketOutput[];
}
