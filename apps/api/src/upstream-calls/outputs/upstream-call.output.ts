import { ApiProperty } from '@nestjs/swagger';

/** One attempt of a call we made to the upstream: never a body, a header or a credential. */
export class UpstreamCallOutput {
  @ApiProperty({ description: 'Orders the log: a later attempt has a greater id.', example: '1042' })
  id!: string;
  @ApiProperty({ description: "The upstream's operation.", example: 'getAccountTransactions' })
  operation!: string;
  @ApiProperty({ type: String, nullable: true, example: 'sandbox-redirect' }) institutionId!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'The HTTP status the upstream answered; null when none came (a timeout, a refused connection).',
  })
  status!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "What failed, as our client names it: INSTITUTION (the bank failed behind the upstream), UNAVAILABLE (a 5xx; with no status, a timeout, a refused connection or a call not sent because the bank's breaker was open), RATE_LIMITED, CALLER, CONSENT_EXPIRED, …; null for a success.",
  })
  errorCode!: string | null;
  @ApiProperty({ type: 'integer' }) durationMs!: number;
  @ApiProperty({ type: 'integer', description: '1 for a first attempt, then each retry of the same call.' })
  attempt!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The upstream's tracing id of its answer: quote it to the upstream or the bank.",
  })
  tracingId!: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the attempt started.' }) at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) consentId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) syncRunId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) paymentId!: string | null;
}
