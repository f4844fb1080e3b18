import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsUUID, Matches, ValidateBy, ValidateIf } from 'class-validator';
import {
  CONNECT_EVENTS,
  CONNECT_EVENTS_WITH_REASON,
  CONNECT_REASON,
  type ConnectEvent,
} from '#libs/domain/consents';
import { IsInstitutionId } from '../../common/field-rules.js';

const needsReason = (event: unknown) => CONNECT_EVENTS_WITH_REASON.includes(event as ConnectEvent);

/**
 * One step of an attempt to connect a bank, as `<bff-connect>` reports it: which attempt, what happened,
 * and nothing about the user (no search text, no name, no address).
 */
export class ConnectReportInput {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "The attempt: the component's own random id for it, made when it opens. Required, except on the page the bank sent the user back to, which names the attempt by `consentId`.",
  })
  @ValidateIf(
    (report: ConnectReportInput) => report.consentId === undefined || report.attemptId !== undefined,
  )
  @IsUUID('all', { message: 'attemptId must be a UUID (required unless consentId names the attempt)' })
  attemptId?: string;

  @ApiProperty({
    enum: CONNECT_EVENTS,
    description:
      'opened, searched (used the search), chose (a bank), sentToBank (left for the bank, or gave it their credentials in place), returned (back from the bank, or its last SCA step done); the ends connected, declined (at the bank), cancelled (backed out in the component), failed, closed (the page closed or the component removed before an end); error: an error the user met and may recover from.',
  })
  @IsIn(CONNECT_EVENTS, { message: `event must be one of ${CONNECT_EVENTS.join(', ')}` })
  event!: ConnectEvent;

  @ApiPropertyOptional({ example: 'sandbox-redirect', description: 'The bank chosen, from `chose` on.' })
  @IsOptional()
  @IsInstitutionId()
  institutionId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'The consent made for the bank (on `sentToBank`), or, without `attemptId`, the consent the page came back from the bank with: the attempt that made it.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'consentId must be a UUID' })
  consentId?: string;

  @ApiPropertyOptional({
    pattern: CONNECT_REASON.source,
    example: 'CONSENT_REJECTED',
    description: `The error's code (an API error's \`code\`, or the component's own): required on ${CONNECT_EVENTS_WITH_REASON.join(' and ')}, refused on any other event.`,
  })
  @ValidateIf((report: ConnectReportInput) => needsReason(report.event) || report.reason !== undefined)
  @ValidateBy({
    name: 'reasonOnlyWithError',
    validator: {
      validate: (_value: unknown, args) => needsReason((args?.object as ConnectReportInput).event),
      defaultMessage: () => `reason is only for the events ${CONNECT_EVENTS_WITH_REASON.join(' and ')}`,
    },
  })
  @IsDefined({
    message: `reason is required on ${CONNECT_EVENTS_WITH_REASON.join(' and ')}: the error's code`,
  })
  @Matches(CONNECT_REASON, { message: 'reason must be an error code: capitals, digits and _, at most 64' })
  reason?: string;
}
