import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONSENT_KINDS, CONSENT_KINDS_DESCRIPTION } from '#libs/domain/consents';

// A consent as answered: by the consent routes, and (extended) for a new sweeping VRP consent.

export class ConsentSyncOutput {
  @ApiProperty({
    enum: ['none', 'pending', 'syncing', 'synced', 'failed', 'stopped'],
    description: 'The least advanced state among the consent’s accounts (`none`: no accounts yet)',
  })
  status: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the least recently synced account was last synced (null until every account has been)',
  })
  lastSyncedAt: string | null;
}

export class ConsentOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    enum: CONSENT_KINDS,
    description: CONSENT_KINDS_DESCRIPTION,
  })
  kind: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty() institutionId: string;
  @ApiProperty({
    description: 'The upstream’s consent id (quote it to the upstream’s support; its webhooks name it)',
  })
  upstreamConsentId: string;
  @ApiProperty({
    description:
      'Upstream status, verbatim (AWAITING_AUTHORIZATION, AUTHORIZED, REJECTED, REVOKED, EXPIRED, FAILED, …); a data consent is EXPIRED from its expiresAt on, in every answer (docs/consent-lifecycle.md says what each status promises)',
  })
  status: string;
  @ApiProperty({ type: [String] }) featureScope: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) authorizedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt: string | null;
  @ApiPropertyOptional({
    description: "The bank's page while AWAITING_AUTHORIZATION; absent in any other status",
  })
  authorisationUrl?: string;
  @ApiPropertyOptional({
    description:
      "Where to send the user to renew the consent, absent otherwise: the bank's page while a re-authorisation is pending (AWAITING_RE_AUTHORIZATION), or, at a bank that requires the user's PSU headers, our link, whose page asks the bank when the user continues from it (status still AUTHORIZED, as announced by consent.reauthorisation_required)",
  })
  reauthorisationUrl?: string;
  @ApiProperty({
    description:
      'Whether the BFF asks the bank to re-authorise the consent in its last days (suspending access until the user approves): chosen at creation (`autoReauthorise`)',
  })
  autoReauthorise: boolean;
  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'When a completed re-authorisation did not extend the consent (the bank kept expiresAt, or left it within the warning window): no re-authorisation is asked for automatically any more; connect the bank again to keep the data flowing. Absent once an authorisation extends it.',
  })
  reauthorisationNotExtendedAt?: string;
  @ApiPropertyOptional({
    type: ConsentSyncOutput,
    description:
      'GET /v1/consents/{id} only: how fresh the data of the consent’s accounts is; absent from the list and every other answer',
  })
  sync?: ConsentSyncOutput;
}
