import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import {
  CONSENT_KINDS,
  CONSENT_KINDS_DESCRIPTION,
  ConsentStatus,
  FINAL_FAILURE_STATUSES,
} from '#libs/domain/consents';

// The `consent.*` events: what `consentEvent` (libs/domain/consents) records of the consent after the change.

/** What every consent event says of its consent. Not a schema itself. */
abstract class ConsentEventFields {
  @ApiProperty({ format: 'uuid' }) consentId!: string;
  @ApiProperty({
    enum: CONSENT_KINDS,
    description: CONSENT_KINDS_DESCRIPTION,
  })
  kind!: string;
  @ApiProperty({ enum: Object.values(ConsentStatus), description: 'The consent’s status after the change' })
  status!: ConsentStatus;
  @ApiProperty({ description: 'The institution (bank) the consent is with' }) institutionId!: string;
}

@ApiSchema({
  description:
    '`data` of consent.authorized, consent.expiring and consent.reauthorisation_not_extended: the authorised consent',
})
export class ConsentEventData extends ConsentEventFields {
  @ApiProperty({ enum: [ConsentStatus.Authorised], description: 'The consent’s status after the change' })
  override status!: typeof ConsentStatus.Authorised;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the consent expires; null when the bank set no expiry (never in consent.expiring)',
  })
  expiresAt!: string | null;
}

@ApiSchema({
  description: '`data` of consent.reauthorisation_required: the consent, and the bank’s page to renew it',
})
export class ConsentReauthorisationEventData extends ConsentEventFields {
  @ApiProperty({
    enum: [ConsentStatus.AwaitingReauthorisation, ConsentStatus.Authorised],
    description:
      'AWAITING_RE_AUTHORIZATION: access is suspended until the user approves at the bank; AUTHORIZED: the bank needs the user present, so nothing was asked yet and the consent works until its expiry',
  })
  override status!: typeof ConsentStatus.AwaitingReauthorisation | typeof ConsentStatus.Authorised;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the consent expires unless renewed; null when the bank set no expiry',
  })
  expiresAt!: string | null;
  @ApiProperty({
    format: 'uri',
    description:
      'Send the user there to renew the consent: the bank’s page, or (userPresenceRequired) our link, whose page asks the bank when the user continues from it (opening it asks nothing) and forwards them there',
  })
  reauthorisationUrl!: string;
  @ApiProperty({
    description: 'The bank renews this consent only with the user present (it needs PSU headers)',
  })
  userPresenceRequired!: boolean;
}

@ApiSchema({
  description:
    '`data` of consent.failed, consent.expired and consent.revoked: the consent that ended, and why',
})
export class ConsentEndedEventData extends ConsentEventFields {
  @ApiProperty({
    enum: FINAL_FAILURE_STATUSES,
    description:
      'The consent’s status after the change: EXPIRED in consent.expired, REVOKED in consent.revoked; in consent.failed, how the authorisation ended (REJECTED, FAILED, EXPIRED, …)',
  })
  override status!: ConsentStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'CONSENT_REVOKED',
    description:
      'Why, as a code; null when none was recorded (a consent revoked through this API, as a rule). consent.expired and consent.revoked: what the bank or our expiry said (CONSENT_EXPIRED, CONSENT_REVOKED, CONSENT_INVALID). consent.failed: the error the bank redirected with (access_denied, …), TOKEN_EXCHANGE_FAILED, EMBEDDED_<status>, EMBEDDED_TIMEOUT, BANK_<status> (the bank ended it and its callback never landed: read from the bank) or AUTHORISATION_ABANDONED (the user never came back)',
  })
  reason!: string | null;
}
