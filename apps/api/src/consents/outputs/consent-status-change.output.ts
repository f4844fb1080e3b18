import { ApiProperty } from '@nestjs/swagger';

/** One entry of GET /v1/consents/{consentId}/history. */
export class ConsentStatusChangeOutput {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The status before, verbatim as the upstream names it; null for the status the consent was created with (and for the one entry of a consent older than the history)',
  })
  from: string | null;
  @ApiProperty({
    description:
      'The status it took, verbatim (AWAITING_AUTHORIZATION, AUTHORIZED, AWAITING_RE_AUTHORIZATION, REJECTED, REVOKED, EXPIRED, FAILED, …)',
  })
  to: string;
  @ApiProperty({ format: 'date-time' }) changedAt: string;
}
